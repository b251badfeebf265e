# frozen_string_literal: true

require_relative "presets"

module Arena
  module Presets
    # Puma/Unicorn on MRI, Puma and TorqueBox on JRuby (2014): siege at
    # concurrency 5 and 25, 10 repetitions, on Geminabox. Unicorn ran with
    # WEB_CONCURRENCY=5, Puma with -t 4:32 with and without -w 5. The app is
    # the real gem from RubyGems, in its own bundle under presets/siege-2014.
    # Siege 3.0 closed each connection after its response.
    Presets.define(
      name: "siege-2014",
      seed: "004_98b43495dd074b1c.txt",
      method: "siege -c 5 and -c 25, -r 10 on Geminabox's index page; Unicorn (5 workers), Puma -t 4:32 with -w 5 and " \
        "without, on MRI 2.2; Puma and TorqueBox on JRuby 1.7; 4-core Mac mini",
      finding: "at -c 25: Puma+JRuby 5.96 trans/s, Puma -w 5 4.10, Unicorn 3.96, TorqueBox 3.92, Puma without workers 2.24; " \
        "verdict: Puma is the best choice",
      servers: %w[unicorn:workers=5 puma:workers=5,threads=32 puma:workers=0,threads=32 puma-jruby:threads=32 torquebox],
      unavailable: {
        "torquebox" => "TorqueBox cannot be had: the project stopped releasing in 2017, its servers target JRuby 1.7/9.1 (not this machine's JRuby 9.3), and Arena has no adapter for it"
      },
      app: "presets/siege-2014/config.ru",
      workloads: ["/=200:Gem in a Box"],
      scenarios: %w[reps],
      options: {reps: 10, levels: [5, 25], keep_alive: "off", timeout: 30.0},
      shrink: {reps: 1},
      default_scale: 1.0,
      app_gem: "geminabox",
      setup: "bundle install --gemfile presets/siege-2014/Gemfile (script/setup does it)"
    )
  end
end
