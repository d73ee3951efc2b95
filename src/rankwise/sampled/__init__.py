"""sampled."""
