"""Interop check: pyiceberg reads a table (with position delete files) that the Sluice test
`IcebergScanInteropExport` wrote, and its rows are compared with the Sluice scan's.

    SLUICE_SCAN_INTEROP_DIR=/tmp/sluice-scan-interop swift test --filter IcebergScanInteropExport
    /tmp/pyprobe/bin/python Tests/IcebergScanTests/Fixtures/check_with_pyiceberg.py /tmp/sluice-scan-interop
"""

import sys

from pyiceberg.io.pyarrow import PyArrowFileIO
from pyiceberg.table import StaticTable

directory = sys.argv[1]
original, sluice_ids = open(f"{directory}/sluice.txt").read().split("\n")[:2]
metadata_location = f"{directory}/metadata/v1.metadata.json"


class RelocatingFileIO(PyArrowFileIO):
    """Maps the table's original absolute paths onto the copied directory."""

    def new_input(self, location):
        return super().new_input(location.replace(original, directory))


table = StaticTable.from_metadata(metadata_location)
table.io = RelocatingFileIO()
ids = sorted(table.scan(selected_fields=("id",)).to_arrow().column("id").to_pylist())
expected = sorted(int(x) for x in sluice_ids.split(","))
print("pyiceberg:", ids)
print("sluice:   ", expected)
assert ids == expected, "pyiceberg and Sluice disagree"
print("OK: pyiceberg applies the same position deletes")
