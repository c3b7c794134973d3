"""The edge's codec, by direction: ``inbound`` (queue-topic records to the matcher's
events) and ``outbound`` (the core's outputs to records), over ``avro``'s primitives."""
