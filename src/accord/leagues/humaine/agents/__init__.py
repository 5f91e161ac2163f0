"""HUMAINE seller agents, simulated buyers, the language layer and fast mode."""
