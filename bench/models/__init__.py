"""Models: stated arithmetic over measured figures (the Lambda duration model, prices, the cost per million, the scale
model, the hot endpoint's writes per key, the efficiency goals)."""
