"""DynamoDB: the table's key schema, the shared operations, one repository per item kind."""
