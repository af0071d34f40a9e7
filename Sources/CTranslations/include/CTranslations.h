#ifndef SHELFMARK_C_TRANSLATIONS_H
#define SHELFMARK_C_TRANSLATIONS_H

#include <stddef.h>

/// How many translation files are built in.
size_t shelfmark_translation_count(void);

/// The language code of the built-in file at `index` (`en`, `zh-Hans`), in the language menu's order.
const char *shelfmark_translation_code(size_t index);

/// The bytes of the built-in file at `index` (UTF-8 gettext PO), `*length` of them.
const unsigned char *shelfmark_translation_bytes(size_t index, size_t *length);

#endif
