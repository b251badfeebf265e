# frozen_string_literal: true

# Run by `gem install` (spec.extensions): builds the arena-load engine at
# install time. It is not a Ruby C extension, so there is no mkmf here.
#
# The directory already holds the engine's hand-written Makefile, which the
# checkout uses (`make -C ext/arena_load`, `make ... test`). RubyGems runs
# `make clean`, `make` and `make install` and insists that a file named
# `Makefile` exists; GNU make reads `GNUmakefile` before `Makefile`. So this
# writes a GNUmakefile that delegates to the hand-written Makefile and adds
# the `install` step RubyGems needs, and never touches the Makefile itself.

require "rbconfig"

dir = Dir.pwd # RubyGems runs this inside the ext directory, as mkmf expects
makefile = File.join(dir, "Makefile")
abort "extconf.rb: #{makefile} is missing (the gem was packaged without the engine's Makefile)" unless File.file?(makefile)
abort "extconf.rb: the engine needs Linux (epoll); this is #{RbConfig::CONFIG["host_os"]}" unless RbConfig::CONFIG["host_os"].include?("linux")

# RubyGems' siteconf points sitearchdir at a scratch directory whose
# contents it moves into the gem's extension directory (and copies into lib/).
sitearchdir = RbConfig::CONFIG["sitearchdir"]
cc = ENV.fetch("CC", "cc")

File.write(File.join(dir, "GNUmakefile"), <<~MAKE)
  # Written by extconf.rb at `gem install`; delegates to the hand-written Makefile.
  # An install-time build drops -Werror: a newer compiler's new warning must not
  # fail someone's `gem install`. The checkout's own builds keep it.
  sitearchdir = #{sitearchdir}
  all:
  \t$(MAKE) -f Makefile CC="#{cc}" WARN="-std=c11 -D_GNU_SOURCE -Wall -Wextra" arena-load

  install: all
  \tmkdir -p "$(DESTDIR)$(sitearchdir)"
  \tcp -p arena-load "$(DESTDIR)$(sitearchdir)/arena-load"

  # Only intermediate files: RubyGems runs `make clean` after installing too.
  clean:
  \trm -rf build arena-load.tmp

  # Any other target (test, fuzz) is the hand-written Makefile's, unchanged.
  GNUmakefile Makefile: ;
  test fuzz arena-load:
  \t$(MAKE) -f Makefile $@

  .PHONY: all install clean test fuzz
MAKE
