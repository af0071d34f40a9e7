#!/usr/bin/env python3
"""Hard barcode pictures of our own: what a phone makes of a book's or a product's code in a
classroom — blurred, tilted, curved round a spine, creased, under a lamp's glare, in low light,
small in a big photo, squeezed by JPEG. Six kinds: UPC-A product codes, EAN-13 ISBNs, EAN-8, UPC-E,
Code 39 (library labels, some holding an ISBN-10) and Code 128.

    scripts/make-hard-barcodes.py OUT_DIR [COUNT_PER_KIND] [SEED]

Writes OUT_DIR/NNNN.jpg and OUT_DIR/MANIFEST.tsv (image, kind, expected text, what was done to it).
Needs Pillow and python-barcode (`pip install pillow python-barcode`). The bars are drawn here from the
symbologies' tables (UPC-E, whose tables python-barcode lacks, included) — python-barcode only for
Code 128's character set. The pictures the tests read (Tests/ShelfmarkImagingTests/Fixtures/hard)
were made by this script; `shelfmark scan` over a larger run is how the reader's rules were checked.
"""
import io, math, os, random, sys

from PIL import Image, ImageDraw, ImageFilter

L = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011"]
G = ["".join("1" if c == "0" else "0" for c in code[::-1]) for code in L]
R = ["".join("1" if c == "0" else "0" for c in code) for code in L]
PARITY13 = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL"]
UPCE_PARITY = ["EEEOOO", "EEOEOO", "EEOOEO", "EEOOOE", "EOEEOO", "EOOEEO", "EOOOEE", "EOEOEO", "EOEOOE", "EOOEOE"]


def check_digit(digits):
    """The EAN/UPC check digit of `digits` (without it)."""
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(digits)))
    return str((10 - total % 10) % 10)


def ean13_modules(code):
    out = "101"
    pattern = PARITY13[int(code[0])]
    for d, p in zip(code[1:7], pattern):
        out += (L if p == "L" else G)[int(d)]
    out += "01010"
    for d in code[7:]:
        out += R[int(d)]
    return out + "101"


def ean8_modules(code):
    return "101" + "".join(L[int(d)] for d in code[:4]) + "01010" + "".join(R[int(d)] for d in code[4:]) + "101"


def upce_expand(code):
    """UPC-E (number system, six digits, check) as the UPC-A it stands for."""
    ns, d, check = code[0], code[1:7], code[7]
    last = d[5]
    if last in "012":
        body = d[0:2] + last + "0000" + d[2:5]
    elif last == "3":
        body = d[0:3] + "00000" + d[3:5]
    elif last == "4":
        body = d[0:4] + "00000" + d[4]
    else:
        body = d[0:5] + "0000" + last
    return ns + body + check


def upce_modules(code):
    check = int(code[7])
    pattern = UPCE_PARITY[check]
    if code[0] == "1":
        pattern = "".join("O" if p == "E" else "E" for p in pattern)
    out = "101"
    for d, p in zip(code[1:7], pattern):
        out += (G if p == "E" else L)[int(d)]
    return out + "010101"


C39 = {
    "0": "nnnwwnwnn", "1": "wnnwnnnnw", "2": "nnwwnnnnw", "3": "wnwwnnnnn", "4": "nnnwwnnnw", "5": "wnnwwnnnn", "6": "nnwwwnnnn",
    "7": "nnnwnnwnw", "8": "wnnwnnwnn", "9": "nnwwnnwnn", "A": "wnnnnwnnw", "B": "nnwnnwnnw", "C": "wnwnnwnnn", "D": "nnnnwwnnw",
    "E": "wnnnwwnnn", "F": "nnwnwwnnn", "G": "nnnnnwwnw", "H": "wnnnnwwnn", "I": "nnwnnwwnn", "J": "nnnnwwwnn", "K": "wnnnnnnww",
    "L": "nnwnnnnww", "M": "wnwnnnnwn", "N": "nnnnwnnww", "O": "wnnnwnnwn", "P": "nnwnwnnwn", "Q": "nnnnnnwww", "R": "wnnnnnwwn",
    "S": "nnwnnnwwn", "T": "nnnnwnwwn", "U": "wwnnnnnnw", "V": "nwwnnnnnw", "W": "wwwnnnnnn", "X": "nwnnwnnnw", "Y": "wwnnwnnnn",
    "Z": "nwwnwnnnn", "-": "nwnnnnwnw", ".": "wwnnnnwnn", " ": "nwwnnnwnn", "*": "nwnnwnwnn",
}


def code39_modules(text):
    out = ""
    for ch in "*" + text + "*":
        for i, e in enumerate(C39[ch]):
            out += ("1" if i % 2 == 0 else "0") * (3 if e == "w" else 1)
        out += "0"
    return out[:-1]


def code128_modules(text):
    import barcode
    return barcode.get("code128", text).build()[0]


def draw(modules, module_px, bar_height, digits_below=None, quiet=12):
    width = (len(modules) + 2 * quiet) * module_px
    height = bar_height + (30 if digits_below else 10) + 20
    img = Image.new("L", (width, height), 255)
    d = ImageDraw.Draw(img)
    for i, m in enumerate(modules):
        if m == "1":
            x = (i + quiet) * module_px
            d.rectangle([x, 10, x + module_px - 1, 10 + bar_height], fill=0)
    if digits_below:
        d.text((quiet * module_px, bar_height + 14), digits_below, fill=0)
    return img


def make_code(kind, rng):
    if kind == "upca":
        body = "0" + "".join(rng.choice("0123456789") for _ in range(10))
        code = body + check_digit(body)
        return code, ean13_modules("0" + code)
    if kind == "ean13":
        body = "978" + "".join(rng.choice("0123456789") for _ in range(9))
        code = body + check_digit(body)
        return code, ean13_modules(code)
    if kind == "ean8":
        body = "".join(rng.choice("0123456789") for _ in range(7))
        code = body + check_digit(body)
        return code, ean8_modules(code)
    if kind == "upce":
        while True:
            six = "".join(rng.choice("0123456789") for _ in range(6))
            ns = "0"
            full = upce_expand(ns + six + "0")[:-1]
            code = ns + six + check_digit(full)
            return code, upce_modules(code)
    if kind == "code39":
        if rng.random() < 0.4:
            body = "".join(rng.choice("0123456789") for _ in range(9))
            total = sum((10 - i) * int(c) for i, c in enumerate(body))
            check = (11 - total % 11) % 11
            text = body + ("X" if check == 10 else str(check))
        else:
            text = "C" + "".join(rng.choice("0123456789") for _ in range(6))
        return text, code39_modules(text)
    text = rng.choice(["S", "R", "B"]) + "".join(rng.choice("0123456789") for _ in range(rng.randint(4, 8)))
    return text, code128_modules(text)


# What a phone does to a picture.
def blur(img, rng):
    return img.filter(ImageFilter.GaussianBlur(rng.uniform(1.0, 3.2))), "blur"


def tilt(img, rng):
    return img.rotate(rng.uniform(-25, 25), resample=Image.BICUBIC, expand=True, fillcolor=235), "tilt"


def curve(img, rng):
    """Round a spine: the bars' spacing shrinks towards the edges as on a cylinder."""
    w, h = img.size
    strength = rng.uniform(0.5, 1.2)
    mesh = []
    steps = 24
    for i in range(steps):
        x0, x1 = w * i // steps, w * (i + 1) // steps

        def src(x):
            t = (x / w) * 2 - 1
            s = math.sin(t * strength) / math.sin(strength)
            return (s + 1) / 2 * w

        mesh.append(((x0, 0, x1, h), (src(x0), 0, src(x0), h, src(x1), h, src(x1), 0)))
    return img.transform((w, h), Image.MESH, mesh, resample=Image.BICUBIC, fillcolor=235), "curve"


def crease(img, rng):
    """A fold across the bars: one part shifted by a module or two, a grey line along the fold."""
    w, h = img.size
    out = img.copy()
    y = rng.randint(h // 4, 3 * h // 4)
    shift = rng.choice([-3, -2, 2, 3])
    part = img.crop((0, y, w, h))
    out.paste(255, (0, y, w, h))
    out.paste(part, (shift, y))
    d = ImageDraw.Draw(out)
    d.line([(0, y), (w, y + rng.randint(-6, 6))], fill=rng.randint(120, 200), width=rng.randint(2, 5))
    return out, "crease"


def glare(img, rng):
    w, h = img.size
    mask = Image.new("L", (w, h), 0)
    d = ImageDraw.Draw(mask)
    cx, cy, r = rng.randint(0, w), rng.randint(0, h), rng.randint(w // 6, w // 2)
    d.ellipse([cx - r, cy - r // 2, cx + r, cy + r // 2], fill=rng.randint(150, 235))
    mask = mask.filter(ImageFilter.GaussianBlur(r / 3))
    return Image.composite(Image.new("L", (w, h), 255), img, mask), "glare"


def low_light(img, rng):
    dark = img.point(lambda v: int(v * rng.uniform(0.25, 0.45) + 8))
    noise = Image.effect_noise(img.size, rng.uniform(20, 45))
    return Image.blend(dark, noise.point(lambda v: v * 0.35), 0.3), "low light"


def small(img, rng):
    w, h = img.size
    f = rng.uniform(0.35, 0.6)
    return img.resize((max(1, int(w * f)), max(1, int(h * f))), Image.BILINEAR), "small"


def perspective(img, rng):
    w, h = img.size
    k = rng.uniform(0.08, 0.25) * h
    coeffs = find_coeffs([(0, 0), (w, 0), (w, h), (0, h)], [(0, rng.uniform(0, k)), (w, 0), (w, h), (0, h - rng.uniform(0, k))])
    return img.transform((w, h), Image.PERSPECTIVE, coeffs, resample=Image.BICUBIC, fillcolor=235), "perspective"


def find_coeffs(dst, src):
    # Solve the 8 perspective coefficients mapping dst → src (Pillow's PERSPECTIVE data).
    rows, rhs = [], []
    for (x, y), (u, v) in zip(dst, src):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y]); rhs.append(u)
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y]); rhs.append(v)
    n = 8
    m = [r + [b] for r, b in zip(rows, rhs)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [a - f * b for a, b in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


EFFECTS = [blur, tilt, curve, crease, glare, low_light, small, perspective]


def photo(kind, rng):
    text, modules = make_code(kind, rng)
    module_px = rng.choice([2, 3, 3, 4])
    img = draw(modules, module_px, rng.randint(50, 140), digits_below=text if rng.random() < 0.7 else None)
    done = []
    for effect in rng.sample(EFFECTS, rng.randint(2, 4)):
        img, name = effect(img, rng)
        done.append(name)
    # On a page of a book or a box: a grey, slightly textured background around it.
    w, h = img.size
    canvas = Image.effect_noise((w + rng.randint(40, 400), h + rng.randint(40, 300)), 12).point(lambda v: 190 + v // 8)
    canvas.paste(img, (rng.randint(0, canvas.width - w), rng.randint(0, canvas.height - h)))
    buf = io.BytesIO()
    quality = rng.randint(18, 70)
    canvas.convert("RGB").save(buf, "JPEG", quality=quality)
    done.append(f"jpeg {quality}")
    return text, buf.getvalue(), done


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
    os.makedirs(out, exist_ok=True)
    lines = ["image\tkind\texpected\tdone"]
    n = 0
    for kind in ["upca", "ean13", "ean8", "upce", "code39", "code128"]:
        for _ in range(count):
            text, data, done = photo(kind, rng)
            name = f"{n:04d}.jpg"
            open(os.path.join(out, name), "wb").write(data)
            lines.append(f"{name}\t{kind}\t{text}\t{', '.join(done)}")
            n += 1
    open(os.path.join(out, "MANIFEST.tsv"), "w").write("\n".join(lines) + "\n")
    print(f"{n} pictures in {out}")


if __name__ == "__main__":
    main()
