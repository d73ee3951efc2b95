"""What rankwise says about a metric: every choice behind it under a convention and how each preset reads it
(``explain``, ``rankwise explain``), its values under every preset on your data (``across``,
``rankwise explain --across``), and the generated reference of the presets (docs/presets.md)."""
