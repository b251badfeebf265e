# frozen_string_literal: true

require_relative "settings"
require_relative "transport"

module Arena
  module Load
    # The plan's load settings, one member per table row: a Struct made with
    # the table, when first used (the scenarios' own rows are in it), whose
    # values answer the methods below.
    module Options
      def self.new(**values) = struct.new(**values)

      def self.members = struct.members

      def self.struct = @struct ||= Struct.new(*Load.table.map(&:name), keyword_init: true).include(self)

      # `both` runs keep-alive on and off side by side, as the 2016 comparison did.
      def keep_alive_modes
        {"on" => [true], "off" => [false], "both" => [true, false]}.fetch(keep_alive)
      end

      # The bound of the warm-up to a steady state: 2 x -d, at least 2 s (the
      # detector needs 1 s of slices to say anything, and a round's -d is short
      # now that there are more rounds), a cold Rails app at -d 5 up to 10 s.
      def warmup_limit = warmup_max || (2 * duration).clamp(2.0, 10.0)

      # How clients reach the server: the Transport of the three transport rows
      # (the plan's, built once by Planner::Builder, and every engine run's).
      def client_transport = Load::Transport.of(self)

      # The table's engine rows, and the transport they are spoken over.
      def engine_settings = Load::TABLE.select(&:engine).to_h { |s| [s.name, self[s.name]] }.merge(transport: client_transport)

      # A unit's own time bound (a sweep's, a tune trial's share), apart from
      # max_time (--max-time, the whole run's): set by the run (Plan#load_for,
      # Run::Strategy, Tune::Trial), never written into max_time, and not
      # one of the settings recorded. A load with none of its own is bounded
      # by max_time.
      def unit_bound_s = @unit_bound_s || max_time

      # The same settings, the unit bounded by `seconds`.
      def unit_bounded(seconds) = self.class.new(**to_h).bound(seconds)

      # A long unit's bound lowered (Plan::Budget's {setting => seconds}, the
      # setting the user bounds it by): a sweep's (--max-time's) is its
      # unit_bound_s, a soak's its --soak-time.
      def lowered(bounds)
        setting, seconds = bounds.first
        (setting == :max_time) ? unit_bounded(seconds) : with(setting => seconds)
      end

      # The same settings with these changed (a round's -d), its unit's bound kept.
      def with(**changes) = self.class.new(**to_h, **changes).bound(@unit_bound_s)

      protected

      def bound(seconds)
        @unit_bound_s = seconds
        freeze
      end
    end
  end
end
