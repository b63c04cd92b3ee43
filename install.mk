# SPDX-License-Identifier: GPL-2.0
#
# Installing gpuprobe like a kernel tool (Documentation/install.rst):
#   make install [PREFIX=/usr/local] [DESTDIR=]   tool, injection libraries,
#                                                 man pages, completion, uapi header, docs
#   make uninstall                                 the same files, removed
#   make install-dkms [DESTDIR=]                   module source + dkms.conf in
#                                                 /usr/src/gpuprobe-VERSION
#   make uninstall-dkms
#   make deb                                       gpuprobe-dkms and gpuprobe-trace .debs
#   make package-test                              the packaging/signing tier of make test
# Included by the top Makefile.

VERSION := $(shell sed -n 's/^\#define GPUPROBE_VERSION "\(.*\)"/\1/p' $(TOP)/kmod/gpuprobe.h)

PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
# The binary lives beside its injection libraries, where `record` looks for
# them (the directory of /proc/self/exe); BINDIR gets a relative symlink.
PKGLIBDIR	?= $(PREFIX)/lib/gpuprobe
MANDIR		?= $(PREFIX)/share/man
INCLUDEDIR	?= $(PREFIX)/include
DOCDIR		?= $(PREFIX)/share/doc/gpuprobe
BASHCOMPDIR	?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR	?= $(PREFIX)/share/zsh/site-functions
# DKMS finds module sources in /usr/src only, whatever PREFIX says.
DKMSSRCDIR	?= /usr/src/gpuprobe-$(VERSION)

INSTALL		?= install
INJECT_LIBS	= $(wildcard $(TOP)/inject/libgpuprobe_*.so)
DOCS		:= README.md Documentation/install.rst Documentation/module.md \
		   Documentation/trace-format.md Documentation/report-json.md \
		   Documentation/probes.md Documentation/netlink/specs/gpuprobe.yaml

install: user
	$(INSTALL) -d $(DESTDIR)$(PKGLIBDIR) $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 0755 user/gpuprobe-trace $(DESTDIR)$(PKGLIBDIR)/gpuprobe-trace
	ln -sfr $(DESTDIR)$(PKGLIBDIR)/gpuprobe-trace $(DESTDIR)$(BINDIR)/gpuprobe-trace
	$(if $(INJECT_LIBS),$(INSTALL) -m 0644 $(INJECT_LIBS) $(DESTDIR)$(PKGLIBDIR)/)
	$(INSTALL) -D -m 0644 Documentation/gpuprobe-trace.1 $(DESTDIR)$(MANDIR)/man1/gpuprobe-trace.1
	$(INSTALL) -D -m 0644 Documentation/gpuprobe.4 $(DESTDIR)$(MANDIR)/man4/gpuprobe.4
	$(INSTALL) -D -m 0644 completion/gpuprobe-trace.bash $(DESTDIR)$(BASHCOMPDIR)/gpuprobe-trace
	$(INSTALL) -D -m 0644 completion/_gpuprobe-trace $(DESTDIR)$(ZSHCOMPDIR)/_gpuprobe-trace
	$(INSTALL) -D -m 0644 include/uapi/linux/gpuprobe.h $(DESTDIR)$(INCLUDEDIR)/linux/gpuprobe.h
	$(INSTALL) -d $(DESTDIR)$(DOCDIR)
	$(INSTALL) -m 0644 $(DOCS) $(DESTDIR)$(DOCDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/gpuprobe-trace \
		$(DESTDIR)$(PKGLIBDIR)/gpuprobe-trace \
		$(DESTDIR)$(PKGLIBDIR)/libgpuprobe_cupti.so \
		$(DESTDIR)$(PKGLIBDIR)/libgpuprobe_opencl.so \
		$(DESTDIR)$(MANDIR)/man1/gpuprobe-trace.1 \
		$(DESTDIR)$(MANDIR)/man4/gpuprobe.4 \
		$(DESTDIR)$(BASHCOMPDIR)/gpuprobe-trace \
		$(DESTDIR)$(ZSHCOMPDIR)/_gpuprobe-trace \
		$(DESTDIR)$(INCLUDEDIR)/linux/gpuprobe.h \
		$(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOCS)))
	-rmdir $(DESTDIR)$(PKGLIBDIR) $(DESTDIR)$(DOCDIR) 2>/dev/null

# What DKMS builds from: dkms.conf, the top Kbuild's kmod/ part and the uapi
# header (kmod/Kbuild includes ../include).
install-dkms:
	@test -n "$(VERSION)" || { echo "no GPUPROBE_VERSION in kmod/gpuprobe.h"; exit 1; }
	@grep -q '^PACKAGE_VERSION="$(VERSION)"$$' dkms.conf || \
		{ echo "dkms.conf's PACKAGE_VERSION is not $(VERSION) (kmod/gpuprobe.h): make them agree"; exit 1; }
	$(INSTALL) -d $(DESTDIR)$(DKMSSRCDIR)/kmod $(DESTDIR)$(DKMSSRCDIR)/include/uapi/linux
	$(INSTALL) -m 0644 dkms.conf $(DESTDIR)$(DKMSSRCDIR)/dkms.conf
	$(INSTALL) -m 0644 kmod/Kbuild $(filter-out %.mod.c,$(wildcard kmod/*.c)) $(wildcard kmod/*.h) \
		$(DESTDIR)$(DKMSSRCDIR)/kmod/
	$(INSTALL) -m 0644 include/uapi/linux/gpuprobe.h $(DESTDIR)$(DKMSSRCDIR)/include/uapi/linux/
	@echo "now: dkms install gpuprobe/$(VERSION)   (builds and installs it for the running kernel)"

uninstall-dkms:
	rm -rf $(DESTDIR)$(DKMSSRCDIR)

# Debian packages, built from a copy of the tracked (and new, not ignored)
# files so that the tree's build/ and objects stay out: build/deb/*.deb
DEB_DIR := $(BUILD)/deb
deb:
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/gpuprobe-$(VERSION)
	git ls-files -z --cached --others --exclude-standard | \
		rsync -a --from0 --files-from=- ./ $(DEB_DIR)/gpuprobe-$(VERSION)/
	cd $(DEB_DIR)/gpuprobe-$(VERSION) && \
		DEB_BUILD_OPTIONS="nocheck parallel=2 $(DEB_BUILD_OPTIONS)" \
		dpkg-buildpackage -b -us -uc
	ls $(DEB_DIR)/*.deb

package-test: all
	scripts/package-test.sh

.PHONY: install uninstall install-dkms uninstall-dkms deb package-test
