# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/arena_case"
require "arena"
require "open3"
require "timeout"

module Arena
  # `arena run --transport`: the servers that terminate TLS and HTTP/2
  # themselves, and the fronts that do it for the others, measured with 0
  # errors and the negotiated protocol recorded in every measurement.
  class TransportRunTest < ArenaCase
    LOAD = %w[--workload server -d 0.4 -w 0.2 -c 4 --rounds 1].freeze

    def test_falcon_over_h2_and_puma_over_tls
      run = arena("run", "--servers", "falcon:count=1 puma:workers=0", "--transport", "h2", "--h2-streams", "4", *LOAD)
      # Puma speaks no HTTP/2: said once as unsupported, not a failure; Falcon runs.
      assert_match(/puma.*unsupported over h2: Puma speaks HTTP\/1\.1 only/, run.stdout + run.stderr)
      assert_measured(run, "falcon", protocol: "h2")
      tls = -> { arena("run", "--servers", "puma:workers=0 iodine:workers=1", "--transport", "tls", *LOAD) }
      run = tls.call
      # Iodine 0.7.60 segfaulted once mid-load here (a Ruby [BUG] in its C
      # extension; fresh-check at 26db11d), and 0 of 40 short TLS runs did
      # again: its own rare fault, named in its record, and not what this
      # test is about, so that run is made once more.
      run = tls.call if crashed?(run, "iodine")
      assert_measured(run, "puma", protocol: "http/1.1", tls: true)
      assert_measured(run, "iodine", protocol: "http/1.1", tls: true)
      argv = run.measurements.first["engine_argv"]
      assert_includes argv, "--cacert", "Puma has the run's certificate: the engine verifies it"
      assert argv.last.start_with?("https://"), argv.inspect
    end

    def test_nginx_terminates_tls_and_h2_in_front_of_unicorn
      skip "nginx is not installed" unless Fronts::Nginx.binary
      run = arena("run", "--servers", "unicorn:workers=1", "--front", "nginx", "--transport", "h2", "--h2-streams", "2", *LOAD)
      assert_measured(run, "unicorn", protocol: "h2", tls: true)
      m = run.measurements.first
      assert_operator m.dig("front_probes", "cpu_pct_mean").to_f, :>, 0, "nginx's CPU measured apart"
      refute_includes m["server"].to_s, "nginx"
    end

    def test_caddy_and_thruster_fronts
      skip "caddy is not installed" unless Fronts::Caddy.binary
      run = arena("run", "--servers", "puma:workers=0", "--front", "caddy", "--transport", "h2", *LOAD)
      assert_measured(run, "puma", protocol: "h2", tls: true)
      skip "the thruster gem is not installed" unless Fronts::Thruster.binary
      run = arena("run", "--servers", "puma:workers=0", "--front", "thruster", *LOAD)
      assert_measured(run, "puma", protocol: "http/1.1")
      assert_operator run.measurements.first.dig("front_probes", "pss_peak_kb").to_i, :>, 0
      bad = arena("run", "--servers", "puma:workers=0", "--front", "thruster", "--transport", "tls", *LOAD)
      assert_equal 2, bad.status.exitstatus, bad.describe
      assert_match(/thruster --transport tls: unsupported: Thruster's TLS is Let's Encrypt only/, bad.stderr)
    end

    private

    # The server failed with its log's crash line (Session#fail).
    def crashed?(run, server)
      run.results.fetch("servers").any? do |s|
        s["status"] == "failed" && s["label"].start_with?(server) && s["error"].to_s.start_with?("its log: ")
      end
    rescue Errno::ENOENT
      false
    end

    def assert_measured(run, server, protocol:, tls: false)
      assert_equal 0, run.status.exitstatus, run.describe
      ms = run.measurements.select { |m| m["server"].to_s.start_with?(server) }
      refute_empty ms, run.describe
      ms.each do |m|
        assert_equal 0, arena_errors(m), run.describe
        assert_operator m.dig("load", "good", "completed"), :>, 0
        assert_equal protocol, m.dig("load", "transport", "protocol"), "negotiated protocol recorded"
        assert_match(/\ATLSv1\.[23]\z/, m.dig("load", "transport", "tls")) if tls
      end
    end
  end
end
