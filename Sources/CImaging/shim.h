// The C libraries behind ShelfmarkImaging (Debian: libzbar-dev, libleptonica-dev,
// libtesseract-dev + tesseract-ocr-eng, libqrencode-dev, libzint-dev, zlib1g-dev).
// libzint ships no pkg-config file, so every library is linked by name in module.modulemap.
#include <zbar.h>
#include <leptonica/allheaders.h>
#include <tesseract/capi.h>
#include <qrencode.h>
#include <zint.h>
#include <zlib.h>
