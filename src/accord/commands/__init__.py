"""Commands of the ``accord`` CLI that belong to no single layer."""
