"""HUMAINE league: human buyer versus two seller agents."""
