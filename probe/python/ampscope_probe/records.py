"""JSON text of the record stream (version 4): the header line and ModeStep lines.

JSON has no NaN or infinity: a non-finite double is written as the string "nan", "inf" or "-inf",
as the rest of AmpScope does. Finite doubles use Python's repr, the shortest text that reads back as
the same double.
"""
import json
import math

FORMAT = "ampscope-records"
VERSION = 4
MODES = ("fp32", "fp16-amp-scaled", "fp16-amp", "bf16-amp", "fp16-pure", "bf16-pure")


def number(value):
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def line(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
