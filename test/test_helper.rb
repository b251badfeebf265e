# frozen_string_literal: true

$LOAD_PATH.unshift(File.expand_path("../lib", __dir__))
# Under mutant the integration loads and runs the tests itself: autorun
# would run every test again at exit, outside its control, and every mutant
# would survive.
UNDER_MUTANT = !!defined?(Mutant) # before the coverage require below defines Mutant
if UNDER_MUTANT
  require "minitest"
else
  require "minitest/autorun"
end
# `cover "Arena::Verdicts::Gate*"`: which code a test class is the proof of (mutant
# runs only those tests against a mutation of that code). Without the gem
# (a machine without the development bundle) it declares nothing.
begin
  require "set"
  require "mutant/minitest/coverage"
rescue LoadError
  class Minitest::Test
    def self.cover(*) = nil
  end
end
require "tmpdir"
require "fileutils"

# The overlay bundles Arena builds for the tests' throwaway apps go to a
# cache of this test run (inherited by the arena processes the tests start),
# not to the user's ~/.cache, and are removed at the end.
module Arena
  module TestHelp
    # A temporary directory removed when the tests end: after Minitest's run
    # (autorun runs the tests from its own at_exit, so a plain at_exit here
    # would remove it first), or at this process's exit under mutant, where
    # after_run never runs (a forked child's exit leaves it alone).
    def self.tmpdir(prefix)
      dir = Dir.mktmpdir(prefix)
      if UNDER_MUTANT
        owner = Process.pid
        at_exit { FileUtils.rm_rf(dir) if Process.pid == owner }
      else
        Minitest.after_run { FileUtils.rm_rf(dir) }
      end
      dir
    end
  end
end
ENV["XDG_CACHE_HOME"] = Arena::TestHelp.tmpdir("arena-test-cache")

module Arena
  module TestHelp
    # A Plan from command-line flags, on a fixed 2-core machine.
    def self.plan(*argv, machine: Arena::Plan::Machine.new(cores: 2))
      Arena::Planner::Builder.new(machine: machine).parse(argv, banner: "test").build
    end

    def self.engine_path
      File.expand_path("../ext/arena_load/arena-load", __dir__)
    end
  end
end
