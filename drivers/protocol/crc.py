"""The frame check sequence: CRC-16/CCITT-FALSE (also catalogued as CRC-16/IBM-3740).

Parameters: width 16, poly 0x1021, init 0xFFFF, not reflected, xorout 0; check value of the ASCII
string "123456789" is 0x29B1. The non-zero init catches leading zero bytes that CRC-16/XMODEM misses,
and the C implementation in :mod:`binascii` keeps framing cheap on the hot path.
"""

import binascii

CHECK_INPUT = b"123456789"
CHECK_VALUE = 0x29B1


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of ``data``."""
    return binascii.crc_hqx(data, 0xFFFF)
