"""Exact exponent histograms of float32 tensors, computed on the tensor's own device.

Every count is produced by a few whole-tensor operations (bit views, shifts, bincount, bucketize);
no element is looked at from Python and no gradient is copied to the host. The result of one
histogram is a 1-D int64 tensor laid out as described by HISTOGRAM_SLOTS; decode() turns a host copy
of it into the record's histogram fields.
"""
import struct

import torch

# Exponent bins: floor(log2|x|) for finite non-zero float32 x, from -149 (smallest subnormal) to 127.
MIN_EXPONENT = -149
MAX_EXPONENT = 127
EXPONENT_BINS = MAX_EXPONENT - MIN_EXPONENT + 1
ZERO_SLOT = EXPONENT_BINS
POS_INF_SLOT = EXPONENT_BINS + 1
NEG_INF_SLOT = EXPONENT_BINS + 2
NAN_SLOT = EXPONENT_BINS + 3
SPECIAL_SLOTS = EXPONENT_BINS + 4

# Order fixed: the order of the "formats" object and of the C++ RangeFormat enum.
FORMAT_KEYS = ("fp16", "bf16", "fp8-e4m3", "fp8-e5m2")


def _f32_bits(value):
    """Bit pattern of the float32 nearest to value (the values used here are all exact in float32)."""
    packed = struct.pack("<f", value)
    if struct.unpack("<f", packed)[0] != value:
        raise AssertionError("threshold %r is not exact in float32" % (value,))
    return struct.unpack("<i", packed)[0]


# Per format, round-to-nearest-even: (minSub, minNorm, overflow threshold max + ulpMax/2, whether the
# tie at that threshold overflows). It does unless the largest finite value's significand is even:
# E4M3's 448 is 1.110b * 2^8 (1.111b * 2^8 is its NaN), so 464 rounds back to 448.
_FORMAT_LIMITS = {
    "fp16": (2.0 ** -24, 2.0 ** -14, 65520.0, True),
    "bf16": (2.0 ** -133, 2.0 ** -126, 2.0 ** 128 - 2.0 ** 119, True),
    "fp8-e4m3": (2.0 ** -9, 2.0 ** -6, 464.0, False),
    "fp8-e5m2": (2.0 ** -16, 2.0 ** -14, 61440.0, True),
}

_INF_BITS = 0x7F800000
_NEG_INF_BITS = -0x00800000  # 0xff800000 as a signed int32

# Every range is a half-open interval [lo, hi) of |x|'s bit pattern (monotonic in |x| for float32):
#   flushed    0 < |x| <= minSub/2                -> [1, bits(minSub/2) + 1)
#   subnormal  minSub/2 < |x| < minNorm - minSub/2 -> [bits(minSub/2) + 1, bits(minNorm - minSub/2))
#   overflowed |x| >= threshold, finite           -> [bits(threshold), bits(inf))  (E4M3: from bits + 1)
_RANGES = []
for _key in FORMAT_KEYS:
    _min_sub, _min_norm, _overflow, _tie_overflows = _FORMAT_LIMITS[_key]
    _flush_end = _f32_bits(_min_sub / 2) + 1
    _RANGES.append((1, _flush_end))
    _RANGES.append((_flush_end, _f32_bits(_min_norm - _min_sub / 2)))
    _RANGES.append((_f32_bits(_overflow) + (0 if _tie_overflows else 1), _INF_BITS))

# The distinct interval ends, sorted: bucketize(|x| bits, BOUNDARIES, right=True) = the number of ends
# <= |x|, so bucket j holds [BOUNDARIES[j-1], BOUNDARIES[j]) and each range is a run of buckets.
BOUNDARIES = sorted({end for pair in _RANGES for end in pair})
_RANGE_BUCKETS = [(BOUNDARIES.index(lo) + 1, BOUNDARIES.index(hi) + 1) for lo, hi in _RANGES]
FORMAT_SLOTS = len(BOUNDARIES) + 1
HISTOGRAM_SLOTS = SPECIAL_SLOTS + FORMAT_SLOTS

_boundary_cache = {}


def _boundaries_on(device):
    key = str(device)
    tensor = _boundary_cache.get(key)
    if tensor is None:
        tensor = torch.tensor(BOUNDARIES, dtype=torch.int32, device=device)
        _boundary_cache[key] = tensor
    return tensor


def as_float32(tensor):
    """A 1-D float32 view of a gradient; FP16/BF16 are widened (exactly) first."""
    flat = tensor.detach().reshape(-1)
    if flat.dtype != torch.float32:
        flat = flat.float()
    return flat.contiguous()


def histogram_counts(x):
    """Counts of a 1-D contiguous float32 tensor as an int64 tensor of HISTOGRAM_SLOTS, on x's device."""
    bits = x.view(torch.int32)
    magnitude = bits & 0x7FFFFFFF
    field = magnitude >> 23
    mantissa = magnitude & 0x7FFFFF
    # A subnormal's exponent is -149 + the position of the mantissa's highest set bit; converting the
    # mantissa (< 2^23) to float32 is exact, and that float's exponent field is 127 + that position.
    subnormal_exponent = (mantissa.float().view(torch.int32) >> 23) - (127 + 149)
    index = torch.where(field == 0, subnormal_exponent, field - 127) - MIN_EXPONENT
    index.masked_fill_(magnitude == 0, ZERO_SLOT)
    index.masked_fill_(bits == _INF_BITS, POS_INF_SLOT)
    index.masked_fill_(bits == _NEG_INF_BITS, NEG_INF_SLOT)
    index.masked_fill_(magnitude > _INF_BITS, NAN_SLOT)
    exponents = torch.bincount(index, minlength=SPECIAL_SLOTS)
    buckets = torch.bucketize(magnitude, _boundaries_on(x.device), right=True)
    ranges = torch.bincount(buckets, minlength=FORMAT_SLOTS)
    return torch.cat((exponents, ranges))


def decode(counts, target_format):
    """The record's histogram object from a host sequence of HISTOGRAM_SLOTS counts (ints or floats)."""
    c = [int(v) for v in counts]
    bins = [[MIN_EXPONENT + i, c[i]] for i in range(EXPONENT_BINS) if c[i]]
    ranges = c[SPECIAL_SLOTS:]
    formats = {}
    for f, key in enumerate(FORMAT_KEYS):
        values = []
        for lo, hi in _RANGE_BUCKETS[3 * f:3 * f + 3]:
            values.append(sum(ranges[lo:hi]))
        formats[key] = {"flushed": values[0], "subnormal": values[1], "overflowed": values[2]}
    target = formats[target_format]
    return {
        "bins": bins,
        "zero": c[ZERO_SLOT],
        "pos-inf": c[POS_INF_SLOT],
        "neg-inf": c[NEG_INF_SLOT],
        "nan": c[NAN_SLOT],
        "target-subnormal": target["subnormal"],
        "target-underflow": target["flushed"],
        "formats": formats,
    }


def total(histogram):
    """Elements counted by a decoded histogram (bins + zero + infinities + NaN)."""
    return (sum(count for _, count in histogram["bins"]) + histogram["zero"] + histogram["pos-inf"]
            + histogram["neg-inf"] + histogram["nan"])


def nonfinite(counts):
    """Whether a host sequence of HISTOGRAM_SLOTS counts holds an infinity or a NaN."""
    return counts[POS_INF_SLOT] + counts[NEG_INF_SLOT] + counts[NAN_SLOT] > 0
