"""Device-class messages: one module per class, each registering its messages in the catalog.

Every module here is imported when drivers.protocol is, so the catalog a link decodes with always
holds every class's messages. Id ranges (docs/protocol.md §8): commands 0x10-0x17 shuffler,
0x18-0x1F shoe, 0x20-0x27 card reader, 0x28-0x2F and 0x34-0x37 progressive controller, 0x30-0x33
meter sign;
events 0x90-0x97 shuffler, 0x98-0x9F shoe, 0xA0-0xA7 card reader, 0xA8-0xAF progressive
controller, 0xB0-0xB3 meter sign.
"""

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
