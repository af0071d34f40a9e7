// The app's icons : librsvg draws Public/icon.svg into cairo image surfaces at the sizes
// phones ask for, at start. `make` installs librsvg2-dev.
#include <librsvg/rsvg.h>

