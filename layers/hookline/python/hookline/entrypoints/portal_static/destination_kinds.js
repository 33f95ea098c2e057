// Generated from hookline.core.destinations.KINDS by `make portal-kinds` (hookline.entrypoints.portal_kinds): do not edit.
// The non-HTTP destinations: how each is named for people, and the field of `destination` holding its address.
export const DESTINATION_KINDS = {
  sqs: {"label": "SQS queue", "field": "queue_url"},
  sns: {"label": "SNS topic", "field": "topic_arn"},
  eventbridge: {"label": "EventBridge bus", "field": "event_bus_arn"},
  kinesis: {"label": "Kinesis stream", "field": "stream_arn"},
  s3: {"label": "S3 bucket", "field": "bucket"},
  poll: {"label": "Polling endpoint", "field": ""},
};
