# frozen_string_literal: true

require_relative "lib/arena/version"

Gem::Specification.new do |spec|
  spec.name = "rack-arena"
  spec.version = Arena::VERSION
  spec.summary = "Benchmark Ruby application servers on the same Rack app, measured honestly"
  spec.description = "Starts Puma, Unicorn, Falcon and the other Rack servers on your app (or a built-in one), " \
    "verifies them, loads them with its own C engine (arena-load, compiled at install) and reports " \
    "throughput, latency, errors and memory; `arena compare --fail-on` gates CI on regressions beyond noise."
  spec.authors = ["Arena developers"]
  spec.license = "MIT"
  spec.required_ruby_version = ">= 3.1"
  # Only what runs: the engine's sources and both of its makefiles' inputs (its
  # tests stay in the repository), and the presets' own app bundles.
  spec.files = Dir.chdir(__dir__) do
    Dir[
      "lib/**/*", "exe/*", "ext/arena_load/*.{c,h}", "ext/arena_load/Makefile", "ext/arena_load/extconf.rb",
      "presets/*/{Gemfile,Gemfile.lock,config.ru}", "README.md", "CHANGELOG.md", "docs/*.md"
    ].reject { |path| File.directory?(path) }
  end
  spec.bindir = "exe"
  spec.executables = ["arena"]
  # Compiles arena-load at install time; see extconf.rb for why it writes a
  # GNUmakefile beside the hand-written Makefile.
  spec.extensions = ["ext/arena_load/extconf.rb"]
  # The built-in app's /primes is Prime.first(n).sum, as the 2016 comparison ran
  # it; prime is a bundled gem since Ruby 3.1, so a bundle must name it.
  spec.add_dependency "prime", ">= 0.1"
  spec.add_dependency "rack", ">= 2.2"
  spec.add_dependency "terminal-table", ">= 3.0"
end
