"""The frame check sequence: CRC-16/CCITT-FALSE (also catalogued as CRC-16/IBM-3740).

Parameters: width 16, poly 0x1021, init 0xFFFF, not reflected, xorout 0; check value of the ASCII
string "123456789" is 0x29B1. The non-zero init catches leading zero bytes that CRC-16/XMODEM misses.

The register is computed by fastcrc (a compiled table-slicing implementation) rather than
:func:`binascii.crc_hqx`: the decoder's worst case on hostile input is one CRC per false header, so
the CRC's speed bounds it (decision 0024, ``bench/codec_worst.py``).
"""

from fastcrc import crc16 as _crc16

CHECK_INPUT = b"123456789"
CHECK_VALUE = 0x29B1
INIT = 0xFFFF


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of ``data``."""
    return _crc16.xmodem(data, INIT)


#: ``crc16_continued(data, register)``: the register after ``data``, from ``register`` — the CRC of a
#: message of which ``data`` is the rest (XMODEM is CCITT-FALSE from another starting register). The
#: compiled function itself, not a wrapper: the decoder calls it once per candidate frame.
crc16_continued = _crc16.xmodem
