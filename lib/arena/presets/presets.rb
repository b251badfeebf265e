# frozen_string_literal: true

require_relative "../core"
require_relative "../support/registry"

module Arena
  # Presets re-run the published comparisons of ../shared/seeds on today's
  # servers. A preset is data only: where it comes from, what it runs, and
  # which of its numbers shrink under --scale. Planner::Builder takes a preset's
  # options as defaults beneath the flags, so any flag still wins.
  module Presets
    # name, seed (file under shared/seeds), method and finding (one line each:
    # what was published), servers (specs as for --servers), unavailable
    # ({server => why} for servers the seed ran that Arena has no adapter
    # for), app (a config.ru under the repository, nil for the built-in
    # app), workloads (names, paths, or Workload values), scenarios, options
    # (Planner::Builder options at the original size), shrink ({option => floor}:
    # what --scale multiplies; an Integer floor rounds to a count, a Float
    # floor keeps seconds), default_scale (so the preset takes a few minutes
    # on a 2-core machine), app_gem and setup (the gem the app cannot run
    # without, and how to install it).
    Preset = Struct.new(:name, :seed, :method, :finding, :servers, :unavailable, :app, :workloads,
      :scenarios, :options, :shrink, :default_scale, :app_gem, :setup, keyword_init: true) do
      # The Planner::Builder options of this preset at `scale` (1 = the original).
      def options_at(scale)
        shrunk = shrink.to_h do |key, floor|
          value = options.fetch(key) * scale
          [key, floor.is_a?(Integer) ? [value.round, floor].max : [value.round(2), floor].max]
        end
        options.merge(shrunk)
      end

      def app_path = app && File.join(ROOT, app)

      def to_h(scale)
        {"name" => name, "seed" => seed, "scale" => scale, "default_scale" => default_scale,
         "method" => method, "finding" => finding}
      end
    end

    # A preset as a plan re-runs it (Plan#preset): at its scale, with a note
    # for each of its servers skipped here. to_h is what results.json records.
    Chosen = Struct.new(:preset, :scale, :skipped, keyword_init: true) do
      def name = preset.name

      def seed = preset.seed

      def to_h = preset.to_h(scale).merge("skipped" => skipped)
    end

    extend Support::Registry

    def self.kind = "preset"

    def self.define(**fields) = registry[fields.fetch(:name)] = Preset.new(**fields).freeze

    def self.load_all = super(__dir__)
  end
end
