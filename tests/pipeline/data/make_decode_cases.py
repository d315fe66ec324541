#!/usr/bin/python3
"""Writes the decoder's test cases into OUTDIR: image files and, for each
one that must decode, the pixels PIL (an outside reference, also on
libjpeg-turbo) gets for it, as raw RGB; cases.json lists them.

Sources: python3-skimage's bundled photos and PNGs (RGB, RGBA, palette,
gray) and its truncated.jpg; generated from them: baseline, progressive,
gray and CMYK JPEGs, JPEGs with each EXIF orientation, a 16-bit gray PNG,
and broken files (truncated, a corrupt CRC, an unknown format, a header
declaring more pixels than the limit).

  tests/pipeline/data/make_decode_cases.py OUTDIR
"""

import io
import json
import os
import struct
import sys
import zlib

import numpy as np
from PIL import Image, ImageOps

SKIMAGE = "/usr/lib/python3/dist-packages/skimage/data"


def expected_rgb(image):
    return np.asarray(ImageOps.exif_transpose(image).convert("RGB"))


def main(out):
    os.makedirs(out, exist_ok=True)
    cases = []

    def good(name, data, rgb, note):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        rgb = np.ascontiguousarray(rgb, dtype=np.uint8)
        with open(os.path.join(out, name + ".rgb"), "wb") as f:
            f.write(rgb.tobytes())
        cases.append({"file": name, "ok": True, "width": rgb.shape[1], "height": rgb.shape[0],
                      "note": note})

    def bad(name, data, words, note):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        cases.append({"file": name, "ok": False, "words": words, "note": note})

    for file, note in [("astronaut.png", "RGB"), ("logo.png", "RGBA: alpha dropped"),
                       ("palette_color.png", "palette"), ("palette_gray.png", "gray palette"),
                       ("foo3x5x4indexed.png", "indexed 5x3"), ("green_palette.png", "palette"),
                       ("chessboard_GRAY.png", "gray"), ("hubble_deep_field.jpg", "baseline JPEG"),
                       ("rocket.jpg", "JPEG")]:
        data = open(os.path.join(SKIMAGE, file), "rb").read()
        good(file, data, expected_rgb(Image.open(io.BytesIO(data))), note)

    astronaut = Image.open(os.path.join(SKIMAGE, "astronaut.png")).convert("RGB")
    small = astronaut.resize((96, 64))
    for name, kwargs, source, note in [
            ("q90_420.jpg", {"quality": 90, "subsampling": 2}, astronaut, "4:2:0"),
            ("q60_444.jpg", {"quality": 60, "subsampling": 0}, astronaut, "4:4:4"),
            ("progressive.jpg", {"quality": 85, "progressive": True}, astronaut, "progressive"),
            ("gray.jpg", {"quality": 90}, astronaut.convert("L"), "gray JPEG"),
            ("cmyk.jpg", {"quality": 95}, astronaut.convert("CMYK"), "Adobe CMYK")]:
        buffer = io.BytesIO()
        source.save(buffer, "JPEG", **kwargs)
        data = buffer.getvalue()
        good(name, data, expected_rgb(Image.open(io.BytesIO(data))), note)
    for orientation in range(1, 9):
        exif = Image.Exif()
        exif[0x0112] = orientation
        buffer = io.BytesIO()
        small.save(buffer, "JPEG", quality=95, exif=exif.tobytes())
        data = buffer.getvalue()
        good("orientation_%d.jpg" % orientation, data, expected_rgb(Image.open(io.BytesIO(data))),
             "EXIF orientation %d" % orientation)

    gray16 = (np.arange(64 * 48, dtype=np.uint32).reshape(48, 64) * 21).astype(np.uint16)
    buffer = io.BytesIO()
    Image.fromarray(gray16).save(buffer, "PNG")
    high = (gray16 >> 8).astype(np.uint8)  # the high byte, not PIL's clip to 255
    good("gray16.png", buffer.getvalue(), np.stack([high] * 3, axis=-1), "16-bit gray")

    png = open(os.path.join(SKIMAGE, "astronaut.png"), "rb").read()
    bad("truncated.png", png[:len(png) // 2], "truncated or corrupt PNG", "half the file")
    corrupt = bytearray(png)
    corrupt[len(png) // 2] ^= 0xFF  # inside IDAT: its CRC no longer matches
    bad("corrupt.png", bytes(corrupt), "truncated or corrupt PNG", "a flipped byte")
    bad("truncated.jpg", open(os.path.join(SKIMAGE, "truncated.jpg"), "rb").read(),
        "truncated or corrupt JPEG", "skimage's truncated JPEG")
    jpeg = open(os.path.join(out, "q90_420.jpg"), "rb").read()
    bad("cut.jpg", jpeg[:len(jpeg) * 2 // 3], "truncated or corrupt JPEG", "two thirds")
    bad("text.txt", b"not an image at all\n", "not a JPEG or PNG", "unknown format")
    bad("empty.png", b"", "not a JPEG or PNG", "no bytes")
    ihdr = struct.pack(">IIBBBBB", 100000, 100000, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    bomb = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk + struct.pack(
        ">I", zlib.crc32(chunk))
    bad("bomb.png", bomb, "more than", "100000x100000 declared")

    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(sys.argv[1])
