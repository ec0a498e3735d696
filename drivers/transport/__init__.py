"""Byte streams to devices: serial (any pyserial URL) and USB bulk (pyusb)."""
