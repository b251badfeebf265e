# frozen_string_literal: true

require_relative "lib/arena/version"

Gem::Specification.new do |spec|
  spec.name = "rack-arena"
  spec.version = Arena::VERSION
  spec.summary = "Benchmark Ruby application servers on the same Rack app, measured honestly"
  spec.authors = ["Arena developers"]
  spec.license = "MIT"
  spec.required_ruby_version = ">= 3.1"
  spec.files = Dir["lib/**/*", "exe/*", "ext/arena_load/*.{c,h}", "ext/arena_load/Makefile", "README.md"]
  spec.bindir = "exe"
  spec.executables = ["arena"]
  # The built-in app's /primes is Prime.first(n).sum, as the 2016 comparison ran
  # it; prime is a bundled gem since Ruby 3.1, so a bundle must name it.
  spec.add_dependency "prime", ">= 0.1"
  spec.add_dependency "rack", ">= 2.2"
  spec.add_dependency "ruby-progressbar", "~> 1.13"
  spec.add_dependency "terminal-table", ">= 3.0"
end
