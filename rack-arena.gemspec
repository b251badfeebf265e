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
  spec.add_dependency "rack", ">= 2.2"
  spec.add_dependency "ruby-progressbar", "~> 1.13"
  spec.add_dependency "terminal-table", ">= 3.0"
end
