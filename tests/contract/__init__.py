"""The contract's generated checks: values drawn from the document's request schemas, each judged by the server's
models. Pure, like the unit tier, but their generators draw hundreds of values per model from the schemas (seconds of
CPU each): they run in `make test`'s second tier, outside `make unit`'s 30 s budget."""
