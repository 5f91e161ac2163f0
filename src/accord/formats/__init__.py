"""Scenario file formats: GENIUS XML (read/write), GeniusWeb JSON (read), native JSON.

>>> from accord.formats import load_scenario
>>> load_scenario("job_offer").space.cardinality
80
"""

from accord.core.errors import FormatError
from accord.formats.discretize import discretize_scenario
from accord.formats.genius import (
    GeniusDomain,
    read_genius_domain,
    read_genius_folder,
    read_genius_profile,
)
from accord.formats.genius_write import (
    genius_domain_xml,
    genius_profile_xml,
    write_genius_folder,
)
from accord.formats.geniusweb import read_geniusweb_domain, read_geniusweb_folder
from accord.formats.legacy import GeniusAdditiveUtility
from accord.formats.native import (
    read_native,
    scenario_from_dict,
    scenario_to_dict,
    utility_from_native,
    write_native,
)
from accord.formats.registry import detect_format, load_scenario, save_scenario

__all__ = [
    "FormatError",
    "GeniusAdditiveUtility",
    "GeniusDomain",
    "detect_format",
    "discretize_scenario",
    "genius_domain_xml",
    "genius_profile_xml",
    "load_scenario",
    "read_genius_domain",
    "read_genius_folder",
    "read_genius_profile",
    "read_geniusweb_domain",
    "read_geniusweb_folder",
    "read_native",
    "save_scenario",
    "scenario_from_dict",
    "scenario_to_dict",
    "utility_from_native",
    "write_genius_folder",
    "write_native",
]
