#!/bin/sh
# Builds Shelfmark's Debian package from a built binary: scripts/package-deb.sh BIN_DIR OUT_DIR
#
# The package holds the binary (/usr/lib/shelfmark, with the Swift runtime it was linked against, which
# Debian does not ship; the binary finds it beside itself by its $ORIGIN run path), /usr/bin/shelfmark,
# the web files (/usr/share/shelfmark/Public), and scripts that make it a service on install
# (`shelfmark install --in-place`: user, data directory, settings, systemd unit) and remove the service,
# never the data, on removal. Depends: the Debian packages of every other shared library the binary
# loads (found by ldd and dpkg -S), the OCR languages and the fonts the PDFs are drawn with.
set -eu

bin=${1:?the folder of the built binary}
out=${2:?the folder for the package}
root=$(cd "$(dirname "$0")/.." && pwd)
binary="$bin/shelfmark"
test -x "$binary" || { echo "no binary at $binary" >&2; exit 1; }

arch=$(dpkg --print-architecture)
count=$(git -C "$root" rev-list --count HEAD 2>/dev/null || echo 0)
hash=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo local)
version="0.${count}+g${hash}"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage/DEBIAN" "$stage/usr/lib/shelfmark" "$stage/usr/bin" "$stage/usr/share/shelfmark" "$stage/usr/share/doc/shelfmark"
install -m 755 "$binary" "$stage/usr/lib/shelfmark/shelfmark"
strip --strip-unneeded "$stage/usr/lib/shelfmark/shelfmark"
ln -s ../lib/shelfmark/shelfmark "$stage/usr/bin/shelfmark"
cp -R "$root/Public" "$stage/usr/share/shelfmark/Public"
chmod -R u=rwX,go=rX "$stage/usr/share/shelfmark"
install -m 644 "$root/README.md" "$stage/usr/share/doc/shelfmark/README.md"

# The libraries the binary loads: Swift's own (and theirs) go into the package; the Debian packages of
# the others it names itself are its dependencies (theirs follow from those).
needed_by() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
needed=$(needed_by "$binary")
for lib in $(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\/opt\/swift\// { print $3 }'); do
    needed="$needed
$(needed_by "$lib")"
done
depends=""
for lib in $(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $1 "=" $3 }'); do
    name=${lib%%=*}
    lib=${lib#*=}
    real=$(readlink -f "$lib")
    case "$real" in
        /opt/swift/*|*/swift/linux/*)
            install -m 644 "$real" "$stage/usr/lib/shelfmark/$name"
            strip --strip-unneeded "$stage/usr/lib/shelfmark/$name" ;;
        *)
            echo "$needed" | grep -qx "$name" || continue
            package=""
            for candidate in "$lib" "$real" "/usr$lib" "/usr$real" "${lib#/usr}" "${real#/usr}"; do
                package=$(dpkg -S "$candidate" 2>/dev/null | head -n 1 | cut -d: -f1) && [ -n "$package" ] && break
            done
            [ -n "$package" ] || { echo "no Debian package ships $lib" >&2; exit 1; }
            depends="$depends $package" ;;
    esac
done
# What the binary reads at run time rather than links: OCR languages, fonts, certificate authorities.
depends="$depends tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-gle tesseract-ocr-chi-sim fonts-noto-core fonts-noto-cjk ca-certificates passwd"
depends=$(echo "$depends" | tr ' ' '\n' | grep -v '^$' | sort -u | paste -sd, - | sed 's/,/, /g')
size=$(du -sk "$stage/usr" | cut -f1)

cat > "$stage/DEBIAN/control" <<EOF
Package: shelfmark
Version: $version
Architecture: $arch
Maintainer: Shelfmark <shelfmark@localhost>
Installed-Size: $size
Depends: $depends
Section: web
Priority: optional
Description: library system for classroom, home, school and community libraries
 Catalog books by scanning their barcodes, lend them in three taps, send
 friendly reminders, print labels and keep every reader's progress: a web app
 made for phones, a REST API and a command line, on SQLite or PostgreSQL.
 Installing the package runs Shelfmark as a service (systemd) with nightly
 backups; removing it stops the service and keeps the data.
EOF

cat > "$stage/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
    # The user, the data directory, the settings (kept when they exist) and the unit.
    /usr/bin/shelfmark install --in-place
    # An upgrade: the new binary takes over from the running one.
    if [ -n "${2:-}" ] && [ -d /run/systemd/system ]; then
        systemctl try-restart shelfmark.service || true
    fi
fi
EOF

cat > "$stage/DEBIAN/prerm" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = remove ]; then
    # Stops the service and removes its unit; the data and the settings stay.
    /usr/bin/shelfmark uninstall || true
fi
EOF

cat > "$stage/DEBIAN/postrm" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = purge ]; then
    rm -rf /etc/shelfmark
    echo "Shelfmark's data stays in /var/lib/shelfmark (remove it yourself when it is no longer needed)."
fi
EOF
chmod 755 "$stage/DEBIAN/postinst" "$stage/DEBIAN/prerm" "$stage/DEBIAN/postrm"

mkdir -p "$out"
deb="$out/shelfmark_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz -z6 --build "$stage" "$deb" >/dev/null
echo "$deb"
