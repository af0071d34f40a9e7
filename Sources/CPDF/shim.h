// PDFs (letters, labels): cairo draws, pango lays out text in every script
// (Latin, Irish, Chinese through fontconfig's Noto fonts). `make` installs libcairo2-dev,
// libpango1.0-dev, fonts-noto-core and fonts-noto-cjk.
#include <cairo/cairo.h>
#include <cairo/cairo-pdf.h>
#include <pango/pangocairo.h>
