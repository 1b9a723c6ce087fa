"""What rounding a tensor into six formats would cost: SQNR in dB, values changed, flushed / subnormal /
overflowed counts, computed on the tensor's own device with whole-tensor operations.

The rules are the engine's (engine/include/ampscope/engine/rounding_cost.h, docs/record-format.md):
fp16 and bf16 are IEEE casts from float32 (round to nearest even, overflow to inf); fp8-e4m3 and fp8-e5m2
are scaled per tensor by (format max / amax) in float32 and rounded satfinite; mxfp8 uses E4M3 elements in
blocks of 32 consecutive values with an E8M0 scale 2^(floor(log2 block amax) - 8) (OCP MX spec v1.0);
nvfp4 uses E2M1 elements in blocks of 16 with the E4M3 block scale E4M3((block amax / 6) * ts) under the
tensor scale ts = 2688 / amax. torch 1.13 has no float8 types: the FP8 and FP4 rounding works on the
float32 bit patterns with integer operations, as the engine's element kernel does.

The two sums, sum x^2 and sum (x - q)^2, are kept as exact partial sums (ExactSquareSum in the engine):
each float64 term is split by its exponent band and into three 21-bit chunks, and each chunk sum is a
sum of integers below 2^21, exact in float64 whatever order the device adds them in. value() adds the
parts in a fixed order, so the probe's SQNR has the engine's bits.
"""
import math

import torch

FORMAT_KEYS = ("fp16", "bf16", "fp8-e4m3", "fp8-e5m2", "mxfp8", "nvfp4")

# Bands of 8 binades of a float64 term's biased exponent. Squares of float32 values and of differences of
# two float32 values lie in [2^-298, 2^258]: biased exponents 725 .. 1281, bands 90 .. 160.
CHUNK_BITS = 21
CHUNKS = 3
BAND_LO = 90
BAND_HI = 160
PARTS = (BAND_HI - BAND_LO + 1) * CHUNKS
_COUNTS = ("changed", "flushed", "subnormal", "overflowed", "infinite")
_PER_FORMAT = len(_COUNTS) + PARTS
# Layout: elements (finite values), the signal's parts, then per format the counts and the error's parts.
ELEMENTS_SLOT = 0
SIGNAL_SLOT = 1
FORMAT_SLOT = 1 + PARTS
COST_SLOTS = FORMAT_SLOT + len(FORMAT_KEYS) * _PER_FORMAT

_INF_BITS = 0x7F800000
_F32_MAX = 3.4028234663852886e38


def _f32(value, device):
    return torch.tensor(value, dtype=torch.float32, device=device)


class _Element:
    """An OCP element format, rounded satfinite on float32 bit patterns (engine/src/fp8/element_kernel.h)."""

    def __init__(self, mantissa_bits, min_normal_exp, max_value, overflow_bits, tie_overflows):
        self.shift = 23 - mantissa_bits
        self.half_minus_one = (1 << (self.shift - 1)) - 1
        self.keep_mask = ~((1 << self.shift) - 1)
        self.min_normal_bits = (min_normal_exp + 127) << 23
        self.magic = 2.0 ** (min_normal_exp - mantissa_bits + 23)
        self.max_bits = _bits(max_value)
        # The IEEE overflow threshold (max + ulp/2) of the range counts: the tie overflows unless max's
        # significand is even (E4M3's 448).
        self.overflow_bits = overflow_bits
        self.tie_overflows = tie_overflows

    def round(self, v):
        """(rounded float32, subnormal mask, overflowed mask) of float32 v."""
        b = v.view(torch.int32).long()
        sign = b & (1 << 31)
        a = b & 0x7FFFFFFF
        normal = (a + self.half_minus_one + ((a >> self.shift) & 1)) & self.keep_mask
        fa = (a.int()).view(torch.float32)
        sub = ((fa + self.magic) - self.magic).view(torch.int32).long()
        r = torch.where(a < self.min_normal_bits, sub, normal)
        r = torch.where(a > self.max_bits, torch.full_like(r, self.max_bits), r)
        r = torch.where(a > _INF_BITS, a, r)
        out = (r | sign).int().view(torch.float32)  # bits >= 2^31 wrap to the negative int32 pattern
        subnormal = (r != 0) & (r < self.min_normal_bits)
        overflowed = (a >= self.overflow_bits) if self.tie_overflows else (a > self.overflow_bits)
        return out, subnormal, overflowed & (a <= _INF_BITS)


def _bits(value):
    import struct
    return struct.unpack("<i", struct.pack("<f", value))[0]


# OCP 8-bit FP spec v1.0 and OCP MX spec v1.0: E4M3 max 448 (overflows above 464), E5M2 max 57344
# (61440 and up), E2M1 max 6 (7 and up: the tie goes to 8, whose significand is even).
E4M3 = _Element(3, -6, 448.0, _bits(464.0), False)
E5M2 = _Element(2, -14, 57344.0, _bits(61440.0), True)
E2M1 = _Element(1, 0, 6.0, _bits(7.0), True)


def _pow2(e):
    """2^e as float32 for an int tensor e in [-127, 127] (2^-127 is a float32 subnormal)."""
    bits = torch.where(e == -127, torch.full_like(e, 0x00400000), (e + 127) << 23)
    return bits.int().view(torch.float32)


def _block_amax_bits(magnitude, size):
    pad = (-magnitude.numel()) % size
    if pad:
        magnitude = torch.cat((magnitude, magnitude.new_zeros(pad)))
    return magnitude.view(-1, size).amax(dim=1)


def _per_block(values, size, n):
    return values.repeat_interleave(size)[:n]


def _per_tensor(x, magnitude, element, format_max):
    amax_bits = magnitude.max() if magnitude.numel() else magnitude.new_zeros(())
    finite = (amax_bits < _INF_BITS) & (amax_bits > 0)
    amax = torch.where(finite, amax_bits, torch.ones_like(amax_bits)).int().view(torch.float32)
    scale = _f32(format_max, x.device) / amax
    scale = torch.where(torch.isinf(scale), _f32(_F32_MAX, x.device), scale)
    scale = torch.where(finite, scale, _f32(1.0, x.device))
    inv = _f32(1.0, x.device) / scale
    r, subnormal, overflowed = element.round(x * scale)
    return r * inv, subnormal, overflowed


def _mx(x, magnitude):
    n = x.numel()
    amax = _block_amax_bits(magnitude, 32)
    exponent = ((amax >> 23) - 127 - 8).clamp(-127, 127)
    encode = _per_block(_pow2(-exponent), 32, n)
    decode = _per_block(_pow2(exponent), 32, n)
    nan_block = _per_block(amax >= _INF_BITS, 32, n)
    r, subnormal, overflowed = E4M3.round(x * encode)
    q = torch.where(nan_block, torch.full_like(x, float("nan")), r * decode)
    return q, subnormal & ~nan_block, overflowed & ~nan_block


def _nvfp4(x, magnitude):
    n = x.numel()
    device = x.device
    amax_bits = _block_amax_bits(magnitude, 16)
    tensor_bits = amax_bits.max() if amax_bits.numel() else amax_bits.new_zeros(())
    finite = tensor_bits < _INF_BITS
    tensor_amax = torch.where(finite, tensor_bits, torch.zeros_like(tensor_bits)).int().view(torch.float32)
    ts = _f32(448.0 * 6.0, device) / tensor_amax
    ts = torch.where(torch.isinf(ts), _f32(_F32_MAX, device), ts)
    ts = torch.where(tensor_amax > 0, ts, _f32(1.0, device))
    block_amax = amax_bits.int().view(torch.float32)
    block_scale, _, _ = E4M3.round((block_amax / _f32(6.0, device)) * ts)
    zero = block_scale == 0
    encode = torch.where(zero, torch.zeros_like(block_scale), ts / block_scale)
    decode = torch.where(zero, torch.zeros_like(block_scale), block_scale / ts)
    r, subnormal, overflowed = E2M1.round(x * _per_block(encode, 16, n))
    q = r * _per_block(decode, 16, n)
    q = torch.where(finite, q, torch.full_like(x, float("nan")))
    return q, subnormal & finite, overflowed & finite


def _cast(x, dtype, min_normal):
    q = x.to(dtype).float()
    aq = q.abs()
    return q, (aq > 0) & (aq < min_normal), torch.isinf(q)


def _parts(terms):
    """The PARTS chunk sums (float64) of non-negative finite float64 terms (zeros allowed)."""
    bits = terms.view(torch.int64)
    field = bits >> 52
    m = bits & ((1 << 52) - 1)
    m = torch.where(field > 0, m | (1 << 52), m)
    e = field.clamp(min=1)
    s = m << (e & 7)
    base = ((e >> 3) - BAND_LO).clamp(min=0) * CHUNKS  # zero terms land in band 0 with zero chunks
    mask = (1 << CHUNK_BITS) - 1
    index = torch.cat((base, base + 1, base + 2))
    weights = torch.cat((s & mask, (s >> CHUNK_BITS) & mask, s >> (2 * CHUNK_BITS))).double()
    return torch.bincount(index, weights=weights, minlength=PARTS)


def cost_counts(x):
    """COST_SLOTS float64 values for a 1-D contiguous float32 tensor, on x's device."""
    finite = torch.isfinite(x)
    xf = torch.where(finite, x, torch.zeros_like(x))
    magnitude = x.view(torch.int32) & 0x7FFFFFFF
    wide = xf.double()
    pieces = [finite.sum().reshape(1).double(), _parts(wide * wide)]
    rounded = (
        _cast(x, torch.float16, 2.0 ** -14),
        _cast(x, torch.bfloat16, 2.0 ** -126),
        _per_tensor(xf, magnitude, E4M3, 448.0),
        _per_tensor(xf, magnitude, E5M2, 57344.0),
        _mx(xf, magnitude),
        _nvfp4(xf, magnitude),
    )
    for q, subnormal, overflowed in rounded:
        d = wide - q.double()
        infinite = finite & ~torch.isfinite(d)
        d = torch.where(finite & ~infinite, d, torch.zeros_like(d))
        counts = torch.stack((
            (finite & (q != x)).sum(),
            (finite & (x != 0) & (q == 0)).sum(),
            (finite & subnormal).sum(),
            (finite & overflowed).sum(),
            infinite.sum(),
        )).double()
        pieces.append(counts)
        pieces.append(_parts(d * d))
    return torch.cat(pieces)


def _value(parts, infinite):
    if infinite:
        return math.inf
    total = 0.0
    for i, part in enumerate(parts):
        if part != 0.0:
            band = BAND_LO + i // CHUNKS
            total += math.ldexp(part, 8 * band - 1075 + CHUNK_BITS * (i % CHUNKS))
    return total


def sqnr_db(signal, error):
    """10 (log10(signal) - log10(error)); +inf when error is 0, -inf when it is infinite."""
    if error == 0.0:
        return math.inf
    if math.isinf(error) or math.isnan(error):
        return -math.inf
    return 10.0 * (math.log10(signal) - math.log10(error))


def decode(slots, number):
    """The record's "rounding-cost" object from a host sequence of COST_SLOTS values; number() writes a
    double as the record format does (non-finite as a string)."""
    elements = int(slots[ELEMENTS_SLOT])
    signal = _value(slots[SIGNAL_SLOT:SIGNAL_SLOT + PARTS], False)
    out = {}
    for f, key in enumerate(FORMAT_KEYS):
        base = FORMAT_SLOT + f * _PER_FORMAT
        counts = [int(v) for v in slots[base:base + len(_COUNTS)]]
        error = _value(slots[base + len(_COUNTS):base + _PER_FORMAT], counts[4] > 0)
        out[key] = {"elements": elements, "changed": counts[0], "flushed": counts[1],
                    "subnormal": counts[2], "overflowed": counts[3],
                    "sqnr-db": number(sqnr_db(signal, error))}
    return out
