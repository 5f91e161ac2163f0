import accord.core as core


def test_every_exported_name_exists_and_is_documented():
    for name in core.__all__:
        obj = getattr(core, name)
        assert obj is not None, name
        if isinstance(obj, type):
            assert obj.__doc__, f"{name} has no docstring"


def test_export_list_has_no_duplicates_and_covers_the_public_classes():
    assert len(set(core.__all__)) == len(core.__all__)
    public = {n for n, v in vars(core).items() if isinstance(v, type) and not n.startswith("_")}
    assert public <= set(core.__all__), public - set(core.__all__)
