# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/tune"
require "tmpdir"

module Arena
  # tune.json, the config files, the memory budget and the capacity note,
  # from a search outcome built by hand.
  class TuneOutputTest < Minitest::Test
    cover "Arena::Tune::Capacity*"
    cover "Arena::Tune::Candidate*"

    def candidate(settings, rps, pss_mib, status: "ok")
      Tune::Candidate.new(settings: settings, label: "puma:#{settings}", sustained_rps: rps, closed_rps: rps * 1.2, p99_ms: 40.0,
        pss_kb: pss_mib * 1024, closed_pss_kb: pss_mib * 1024, error_pct: 0.0, mean_ms: 10.0, service_ms: 8.0, cpu_pct: 95.0,
        resolution: 0.05, elapsed_s: 12.0, status: status, rates: [rps]).freeze
    end

    def outcome
      best = candidate({"workers" => 2, "threads" => 4}, 400.0, 120)
      runner = candidate({"workers" => 1, "threads" => 4}, 300.0, 80)
      over = candidate({"workers" => 4, "threads" => 4}, 500.0, 260, status: "over-memory")
      Tune::Search::Outcome.new(candidates: [runner, best, over], best: best, runner_up: runner, noise: 0.05, stopped: "converged")
    end

    def test_tune_json_holds_best_runner_up_candidates_and_constraints
      Dir.mktmpdir do |dir|
        machine = Plan::Machine.new(cores: 2) # one server core: 95% CPU is CPU-bound
        output = Tune::Output.new(dir: dir, constraints: Results::TuneConstraints.new(memory_mib: 200.0), machine: machine,
          workload: Plan::Workloads.builtin["pi"], rackup: "config.ru")
        output.add(adapter: Servers.fetch("puma").new(machine: machine), outcome: outcome)
        output.add(adapter: Servers.fetch("webrick").new(machine: machine), note: "nothing to tune")
        doc = JSON.parse(File.read(output.write))
        assert_equal "arena-tune/1", doc["schema"]
        assert_equal 200.0, doc.dig("constraints", "memory_mib")
        puma = doc.dig("servers", "puma")
        assert_equal({"workers" => 2, "threads" => 4}, puma.dig("best", "settings"))
        assert_equal 400.0, puma.dig("best", "sustained_rps")
        assert_equal 120.0, puma.dig("best", "pss_mib")
        assert_equal 40.0, puma.dig("best", "p99_ms")
        assert_equal 300.0, puma.dig("runner_up", "sustained_rps")
        assert_in_delta 33.3, puma["margin_pct"], 0.1
        assert puma["within_noise"], "never met head to head: one look each, 33% apart, is not a claim (under twice the screen)"
        assert_equal %w[ok ok over-memory], puma["candidates"].map { |c| c["status"] }
        assert_equal "cpu", puma.dig("capacity", "limit")
        assert_equal "nothing to tune", doc.dig("servers", "webrick", "note")
        text = File.read(puma["config_file"])
        assert_includes text, "workers 2\n"
        assert_includes text, "threads 4, 4\n"
        assert_equal %w[bundle exec puma -C puma.rb config.ru], puma["command"]
        lines = output.lines.join("\n")
        assert_match(%r{best: workers=2 threads=4: sustains 400 req/s, p99 40.0 ms, PSS 120.0 MiB}, lines)
        assert_match(%r{1 server core serves at most 505 req/s}, lines)
        assert_match(/margin 33\.3%/, lines)
        # The terminal's default: a line a server; the paragraphs are for --verbose and report.md.
        assert_equal ["puma: workers=2 threads=4, best of 3 configs: sustains 400 req/s at p99 40 ms, PSS 120 MiB",
          "webrick: nothing to tune"], output.brief_lines
        assert_equal output.lines, output.detail_lines
      end
    end

    # The model's prediction and the duels, in the lines and in tune.json.
    # A server no look reached (the time ran out first) says so, not "no config qualified of 0 configs".
    def test_a_server_not_looked_at_says_so
      Dir.mktmpdir do |dir|
        machine = Plan::Machine.new(cores: 2)
        output = Tune::Output.new(dir: dir, constraints: Results::TuneConstraints.new(memory_mib: 200.0), machine: machine,
          workload: Plan::Workloads.builtin["pi"], rackup: "config.ru")
        unlooked = Tune::Search::Outcome.new(candidates: [], best: nil, noise: 0.03, stopped: Tune::Search::NOT_LOOKED, duels: [])
        output.add(adapter: Servers.fetch("thin").new(machine: machine), outcome: unlooked)
        failed = candidate({"workers" => 1}, 0.0, 80, status: "failed")
        output.add(adapter: Servers.fetch("puma").new(machine: machine),
          outcome: Tune::Search::Outcome.new(candidates: [failed], best: nil, noise: 0.03, stopped: "failed", duels: []))
        assert_equal "thin: not looked at (no time left)", output.brief_lines.first
        assert_match(/\Apuma: no config qualified of 1 config/, output.brief_lines.last)
        assert_equal "not looked at (no time left)", output.unanswered["thin"]
        assert_match(/\Ano config qualified \(failed/, output.unanswered["puma"])
      end
    end

    def test_the_model_and_the_duels
      Dir.mktmpdir do |dir|
        machine = Plan::Machine.new(cores: 3)
        best = candidate({"workers" => 2, "threads" => 4}, 400.0, 120)
        start = candidate({"workers" => 2, "threads" => 5}, 380.0, 125)
        duel = Tune::Search::Duel.new(a: start.settings, b: best.settings, a_rates: [380.0, 370, 390], b_rates: [400.0, 391, 409],
          level: 0.05, band_pct: 3.0, complete: true)
        output = Tune::Output.new(dir: dir, constraints: Results::TuneConstraints.new, machine: machine, workload: Plan::Workloads.builtin["pi"], rackup: "config.ru")
        output.add(adapter: Servers.fetch("puma").new(machine: machine), outcome: Tune::Search::Outcome.new(candidates: [start, best], best: best,
          runner_up: start, noise: 0.03, stopped: "converged", duels: [duel], model: {slots: 8.0, settings: best.settings}))
        puma = JSON.parse(File.read(output.write)).dig("servers", "puma")
        assert_equal({"slots" => 8.0, "settings" => {"workers" => 2, "threads" => 4}}, puma["model"])
        assert_equal [[380.0, 370.0, 390.0], [400.0, 391.0, 409.0], true], puma["duels"].map { |d| [d["a_rps"], d["b_rps"], d["won"]] }.first
        assert_match(/\Ab is \+5\.\d% against a /, puma.dig("duels", 0, "significance"))
        lines = output.lines
        assert_equal "puma: looked at 2 configs, 1 duels of 3 rounds (converged); noise 3.0%", lines[0].lines.first.chomp
        assert_includes lines[0], "  model: 8.0 requests in service keep 2 cores busy (Little's law on the start's CPU and service time): workers=2 threads=4"
        assert_match(/significance: puma:.* is \+5\.\d% against puma:/, lines.join("\n"))
      end
    end

    def test_a_winner_with_yjit_starts_with_it_in_its_environment
      skip "no YJIT in this Ruby" unless defined?(RubyVM::YJIT)
      Dir.mktmpdir do |dir|
        machine = Plan::Machine.new(cores: 2)
        output = Tune::Output.new(dir: dir, constraints: Results::TuneConstraints.new, machine: machine, workload: Plan::Workloads.builtin["pi"], rackup: "config.ru")
        best = candidate({"workers" => 2, "yjit" => 1}, 400.0, 120)
        output.add(adapter: Servers.fetch("unicorn").new(machine: machine),
          outcome: Tune::Search::Outcome.new(candidates: [best], best: best, noise: 0.05, stopped: "converged"))
        unicorn = JSON.parse(File.read(output.write)).dig("servers", "unicorn")
        assert_equal %w[env RUBY_YJIT_ENABLE=1 bundle exec unicorn -E production -c unicorn.rb config.ru], unicorn["command"]
        assert_includes File.read(unicorn["config_file"]), "worker_processes 2\n"
      end
    end

    # A Rails app's winner starts with the knobs its candidate ran with, so
    # its pool follows its threads as measured (--env still wins).
    def test_a_rails_winner_starts_with_its_rails_knobs
      app = Bundle::AppSource.user(File.expand_path("../../fixtures/apps/rails_db", __dir__))
      Dir.mktmpdir do |dir|
        machine = Plan::Machine.new(cores: 2)
        output = Tune::Output.new(dir: dir, constraints: Results::TuneConstraints.new, machine: machine, workload: Plan::Workloads.builtin["pi"],
          rackup: "config.ru", app: app)
        output.add(adapter: Servers.fetch("puma").new(machine: machine), outcome: outcome)
        assert_equal %w[env RAILS_MAX_THREADS=4 WEB_CONCURRENCY=2 bundle exec puma -C puma.rb config.ru],
          JSON.parse(File.read(output.write)).dig("servers", "puma", "command")
      end
      Dir.mktmpdir do |dir|
        output = Tune::Output.new(dir: dir, constraints: Results::TuneConstraints.new, machine: Plan::Machine.new(cores: 2),
          workload: Plan::Workloads.builtin["pi"], rackup: "config.ru", app: app.with_env("RAILS_MAX_THREADS" => "8"))
        output.add(adapter: Servers.fetch("puma").new(machine: Plan::Machine.new(cores: 2)), outcome: outcome)
        assert_equal %w[env RAILS_MAX_THREADS=8 WEB_CONCURRENCY=2], JSON.parse(File.read(output.write)).dig("servers", "puma", "command").first(3)
      end
    end

    # A winner that ran Solid Queue inside Puma (as the app's production
    # does) writes its plugin line and starts with its gate set: the file
    # holds every setting it ran with.
    def test_a_puma_winner_that_ran_the_apps_jobs_keeps_them
      jobs = Plan::RailsFiles.new(dir: File.expand_path("../../fixtures/rails81", __dir__)).jobs
      app = Bundle::AppSource.user(File.expand_path("../../fixtures/apps/rails_db", __dir__)).with_jobs(jobs)
      Dir.mktmpdir do |dir|
        machine = Plan::Machine.new(cores: 2)
        output = Tune::Output.new(dir: dir, constraints: Results::TuneConstraints.new, machine: machine, workload: Plan::Workloads.builtin["pi"],
          rackup: "config.ru", app: app)
        output.add(adapter: Servers.fetch("puma").new(machine: machine), outcome: outcome)
        puma = JSON.parse(File.read(output.write)).dig("servers", "puma")
        assert_equal %w[env RAILS_MAX_THREADS=4 WEB_CONCURRENCY=2 SOLID_QUEUE_IN_PUMA=true bundle exec puma], puma["command"].first(7)
        assert_includes File.read(puma["config_file"]), "\nplugin :solid_queue if ENV[\"SOLID_QUEUE_IN_PUMA\"]\n"
      end
    end

    def test_config_files_in_each_servers_format
      unicorn = Servers.fetch("unicorn").config_file({"workers" => 3, "preload" => true, "timeout" => 60}, rackup: "config.ru")
      assert_equal "unicorn.rb", unicorn.name
      assert_includes unicorn.text, "worker_processes 3\n"
      assert_includes unicorn.text, "preload_app true\n"
      pitchfork = Servers.fetch("pitchfork").config_file({"workers" => 5, "timeout" => 60, "refork_after" => "50/100"}, rackup: "config.ru")
      assert_includes pitchfork.text, "refork_after [50, 100]\n"
      passenger = JSON.parse(Servers.fetch("passenger").config_file({"pool" => 4, "queue" => 100, "turbocaching" => false}, rackup: "config.ru").text)
      assert_equal [4, 4, false], passenger.values_at("max_pool_size", "min_instances", "turbocaching")
      assert_includes Servers.fetch("uwsgi").config_file({"processes" => 6, "gc_freq" => 1000}, rackup: "config.ru").text, "processes = 6\n"
      falcon = Servers.fetch("falcon").config_file({"count" => 2, "model" => "forked"}, rackup: "config.ru")
      assert_includes falcon.text, "--count 2 --forked"
      assert_nil Servers.fetch("webrick").config_file({}, rackup: "config.ru")
    end

    def test_memory_sizes
      assert_equal 512 * 1024**2, Tune::Budget.parse("512MiB")
      assert_equal 2 * 1024**3, Tune::Budget.parse("2GiB")
      assert_equal 1_500_000_000, Tune::Budget.parse("1.5GB")
      assert_equal 123_456_789, Tune::Budget.parse("123456789")
      error = assert_raises(UsageError) { Tune::Budget.parse("lots") }
      assert_equal "--memory takes a size like 512MiB, 2GiB or a number of bytes, not \"lots\"", error.message
      assert_raises(UsageError) { Tune::Budget.parse("10") }
      Dir.mktmpdir do |dir|
        File.write(File.join(dir, "meminfo"), "MemTotal: 8000000 kB\nMemAvailable:    4000000 kB\n")
        assert_equal 3_072_000_000, Tune::Budget.default_bytes(meminfo: File.join(dir, "meminfo"))
      end
    end

    def test_capacity_names_the_limit
      c = candidate({"workers" => 1, "threads" => 5}, 100.0, 50).with(closed_rps: 120.0, cpu_pct: 40.0, mean_ms: 30.0, service_ms: 40.0)
      cap = Tune::Capacity.new(server: Servers.fetch("puma"), candidate: c, cores: 1)
      assert_equal 5, cap.slots
      assert_equal 3.0, cap.in_server # 100 req/s x 30 ms
      assert_in_delta 125.0, cap.slot_ceiling, 0.01 # 5 slots / 40 ms
      assert_equal "slots", cap.limit # 120 >= 0.8 x 125, CPU at 40%
      assert_match(/L = 3\.0 requests in the server on average for 5 slots/, cap.explanation)
      idle = c.with(closed_rps: 20.0)
      assert_equal "waiting", Tune::Capacity.new(server: Servers.fetch("puma"), candidate: idle, cores: 1).limit
    end

    def test_frontier_keeps_configs_that_sustain_more_than_every_smaller_one
      points = [[100.0, 300.0], [60.0, 250.0], [80.0, 240.0], [120.0, 290.0], [150.0, 400.0]]
      assert_equal [[60.0, 250.0], [100.0, 300.0], [150.0, 400.0]], Report::SustainedChart.frontier(points)
    end

    # The winner run again without its envelope, one run a side: a cost only
    # beyond the search's noise, and a faster unbounded run is never a gain.
    def test_what_the_envelope_costs_is_read_against_the_noise
      machine = Plan::Machine.new(cores: 2)
      adapter = Servers.fetch("puma").new(machine: machine, envelope: Plan::Envelope.parse("cpus=1,memory=1GiB"))
      lines = ->(unbounded_rps) do
        Dir.mktmpdir do |dir|
          output = Tune::Output.new(dir: dir, constraints: Results::TuneConstraints.new(memory_mib: 200.0), machine: machine,
            workload: Plan::Workloads.builtin["pi"], rackup: "config.ru")
          output.add(adapter: adapter, outcome: outcome, unbounded: candidate({"workers" => 2, "threads" => 4}, unbounded_rps, 120))
          output.lines.join("\n")[/envelope cpus=1.*/]
        end
      end
      assert_match(/sustains 500 req\/s: the envelope costs 20\.0%\z/, lines.call(500.0))
      assert_match(/sustains 410 req\/s: the envelope's cost is within the noise \(2\.4%, noise 5\.0%\)\z/, lines.call(410.0))
      assert_match(/sustains 390 req\/s: the envelope's cost is within the noise \(-2\.6%, noise 5\.0%\)\z/, lines.call(390.0))
      assert_match(/sustains 300 req\/s: the run without the envelope was 33\.3% slower, more than the noise \(5\.0%\)/, lines.call(300.0))
    end
  end
end
