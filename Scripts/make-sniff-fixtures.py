#!/usr/bin/env python3
"""Prints the upload-sniffing fixtures of Tests/SecureNetworkingTests/SniffFixtures.swift.

Each is a real 1x1 image, Image.new("RGB", (1, 1)), saved by Pillow in one format and printed as
Base64 (wrapped at 100 columns), ready to paste into SniffFixtures.swift. Pillow is installed with
pip when it is missing. Check each file with file(1) before committing it.

Usage: Scripts/make-sniff-fixtures.py
"""

import base64
import importlib.util
import io
import subprocess
import sys
import textwrap

if importlib.util.find_spec("PIL") is None:
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "Pillow"], check=True)

from PIL import Image  # noqa: E402

FORMATS = [("jpeg", "JPEG"), ("png", "PNG"), ("gif", "GIF"), ("webp", "WEBP"), ("pdf", "PDF")]

for name, pillow_format in FORMATS:
    buffer = io.BytesIO()
    Image.new("RGB", (1, 1)).save(buffer, format=pillow_format)
    encoded = base64.b64encode(buffer.getvalue()).decode("ascii")
    print(f"    static let {name} = Data(base64Encoded: \"\"\"")
    for line in textwrap.wrap(encoded, 100):
        print(f"        {line}")
    print("        \"\"\", options: .ignoreUnknownCharacters)!")
