"""repr() and len(repr()) of byte strings, as Python itself writes them (test/engine/pythonRepr.test.ts).

    python3 test/support/bytes_repr.py < ["HEX", ...]

Prints one JSON line [repr(b), len(repr(b))] for each b = bytes.fromhex(HEX), in order.
"""
import json
import sys

for h in json.load(sys.stdin):
    b = bytes.fromhex(h)
    print(json.dumps([repr(b), len(repr(b))]))
