# frozen_string_literal: true

require "test_helper"
require "arena"

module Arena
  # ProbeSet on the path a measurement cut short takes: every sampler still
  # running is stopped, readings are dropped unread, and a probe stopped for
  # its figures is not stopped again. The probes are fakes that record calls.
  class ProbeSetTest < Minitest::Test
    class Probe
      attr_reader :calls

      def initialize(fails: false)
        @calls = []
        @fails = fails
      end

      def start
        @calls << :start
        self
      end

      def stop(**args)
        @calls << [:stop, args]
        raise Error, "stop failed" if @fails
        "figures"
      end
    end

    def test_stop_returns_a_probe_s_figures_once
      server = Probe.new
      set = Probes::ProbeSet.new.sample(:server, server).sample(:front, nil)
      assert_equal "figures", set.stop(:server)
      assert_nil set.stop(:server), "stopped once"
      assert_nil set.stop(:front), "a probe that does not apply"
      set.abort
      assert_equal [:start, [:stop, {}]], server.calls
    end

    def test_a_reading_passes_its_arguments
      db = Probe.new
      set = Probes::ProbeSet.new.read(:database, db)
      assert_equal "figures", set.stop(:database, requests: 12)
      assert_equal [:start, [:stop, {requests: 12}]], db.calls
    end

    def test_abort_stops_every_sampler_left_and_drops_the_readings
      failing = Probe.new(fails: true)
      loader = Probe.new
      noise = Probe.new
      set = Probes::ProbeSet.new.sample(:server, failing).sample(:loader, loader).read(:noise, noise)
      set.abort
      assert_equal [:start, [:stop, {}]], failing.calls
      assert_equal [:start, [:stop, {}]], loader.calls, "stopped though the one before raised"
      assert_equal [:start], noise.calls, "a reading is not read on abort"
      set.abort
      assert_equal 2, loader.calls.size, "nothing stopped twice"
    end

    def test_a_name_once
      set = Probes::ProbeSet.new.sample(:server, Probe.new)
      assert_raises(ArgumentError) { set.read(:server, Probe.new) }
    end
  end
end
