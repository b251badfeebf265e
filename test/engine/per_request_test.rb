# frozen_string_literal: true

require_relative "../test_helper"
require_relative "../support/engine_case"

module Arena
  # A mix's requests measured apart (`requests_mix`): each request's count is
  # its share, its latency is its own, lines that share a name are one request.
  class EnginePerRequestTest < EngineCase
    include TestServers

    # /slow/... answers after 40 ms; everything else at once.
    class SlowPaths < KeepAlive
      private

      def answer(request, extra)
        sleep 0.04 if request.path.start_with?("/slow")
        super
      end
    end

    MIX = <<~MIX
      3:fast GET /fast/1 200
      3:fast GET /fast/2 200
      2:slow GET /slow/1 200
      2 GET /status/404 404
      2:wrong GET /status/500 200
    MIX

    def test_each_request_of_a_mix_has_its_share_and_its_own_latency
      SlowPaths.open do |server|
        with_file("mix", MIX) do |mix|
          n = 1200
          run = run_ok(server.target, "-c", 8, "-t", 2, "-n", n, "--mix", mix, deadline: 30)
          per = run.json.fetch("requests_mix").to_h { |r| [r.fetch("name"), r] }
          assert_equal ["fast", "slow", "GET /status/404", "wrong"], per.keys
          total = per.values.sum { |r| r["completed"] }
          assert_equal run.completed, total, "every response belongs to one request"
          {"fast" => 0.5, "slow" => 2 / 12r, "GET /status/404" => 2 / 12r, "wrong" => 2 / 12r}.each do |name, share|
            assert_in_delta share, per[name]["weight_share"], 1e-6
            noise = 4 * Math.sqrt(total * share * (1 - share))
            assert_in_delta total * share, per[name]["completed"], noise, "#{name}: binomial noise at 4 sigma"
          end
          assert_equal per["wrong"]["completed"], per["wrong"]["bad"], "a 500 expected as 200 is bad"
          assert_equal 0, per["wrong"]["latency_us"]["count"]
          assert_equal run.errors["unexpected_status"], per["wrong"]["bad"]
          slow = per["slow"]["latency_us"]
          fast = per["fast"]["latency_us"]
          per.each_value do |r|
            lat = r["latency_us"]
            next if lat["count"].zero?
            assert_operator lat["min"], :<=, lat["p50"], r["name"]
            assert_operator lat["p50"], :<=, lat["p99"], r["name"]
            assert_operator lat["p99"], :<=, lat["max"], r["name"]
          end
          assert_operator slow["p50"], :>=, 40_000, "the slow request's own latency: #{slow}"
          assert_operator fast["p50"], :<, 40_000, "the fast request's own latency, not the slow one's: #{fast}"
          assert_operator fast["p50"], :<, slow["min"], "#{fast} #{slow}"
        end
      end
    end

    def test_a_single_request_has_no_per_request_figures
      KeepAlive.open do |server|
        run = run_ok(server.target, "-c", 2, "-n", 20)
        assert_nil run.json.fetch("requests_mix")
      end
    end
  end
end
