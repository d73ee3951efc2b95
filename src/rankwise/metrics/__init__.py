"""One module per metric; each defines DEFINITION, registered by rankwise.spec.registry."""
