"""The outside world: DynamoDB, SQS, Step Functions, SNS, HTTP, metrics and logging."""
