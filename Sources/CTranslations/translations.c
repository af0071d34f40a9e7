// The interface's translations (gettext PO files in App/Localization/Translations), built into the
// binary by the C compiler's #embed. As Swift array literals (SwiftPM's embedInCode) the four files
// took the Swift compiler four minutes and 4 GB on every fresh build; #embed takes a tenth of a second.
// Adding a language is its PO file there and its line below, in the language menu's order.

#include "CTranslations.h"

#pragma clang diagnostic ignored "-Wc23-extensions"

static const unsigned char en[] = {
#embed "../App/Localization/Translations/en.po"
};
static const unsigned char de[] = {
#embed "../App/Localization/Translations/de.po"
};
static const unsigned char ga[] = {
#embed "../App/Localization/Translations/ga.po"
};
static const unsigned char zh_Hans[] = {
#embed "../App/Localization/Translations/zh-Hans.po"
};

static const struct {
    const char *code;
    const unsigned char *bytes;
    size_t length;
} files[] = {
    {"en", en, sizeof en},
    {"de", de, sizeof de},
    {"ga", ga, sizeof ga},
    {"zh-Hans", zh_Hans, sizeof zh_Hans},
};

size_t shelfmark_translation_count(void) { return sizeof files / sizeof files[0]; }

const char *shelfmark_translation_code(size_t index) {
    return index < shelfmark_translation_count() ? files[index].code : NULL;
}

const unsigned char *shelfmark_translation_bytes(size_t index, size_t *length) {
    if (index >= shelfmark_translation_count()) {
        *length = 0;
        return NULL;
    }
    *length = files[index].length;
    return files[index].bytes;
}
