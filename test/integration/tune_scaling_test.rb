# frozen_string_literal: true

# test: serial (its rounds put a server on every core)

require_relative "../test_helper"
require_relative "../support/arena_case"
require "arena"
require "arena/tune"

# The cores rounds on real servers (lib/arena/tune/scaling.rb): the answer's
# config and your server's best config, each on the server's core and with
# its processes doubled on every core, in the same shuffled rounds; each
# factor with its interval, and each side's measurements in results.json.
class TuneScalingTest < Arena::ArenaCase
  # The fewest rounds a paired ratio is read from (the tune runs Scaling::ROUNDS).
  ROUNDS = Arena::Stats::PairedMethod::MINIMUM

  def test_the_answer_and_the_stay_config_each_on_one_core_and_on_every_core
    machine = Arena::Plan::Machine.current
    skip "needs 2 cores, this machine has #{machine.cores}" if machine.cores < 2
    out = File.join(@tmp, "cores")
    plan = Arena::Planner::Builder.new(machine: machine, say: ->(_) {})
      .parse(%W[--servers puma --workload json -c 4 -d 0.5 -w 0.2 --warmup-max 0 --out #{out}], banner: "test").build
    answer, stay = %w[workers=1,threads=2 workers=1,threads=4].map { |s| Arena::Planner::ServerList.parse(["puma:#{s}"], machine: machine).first }
    store = Arena::Results::Store.new(path: File.join(out, "results.json"), environment: {}, plan: plan.to_h)
    # The search's closed maxima, as a slow app's: the engine's CPU 1% of the server's.
    [answer, stay].each do |a|
      store.add_measurement(Arena::Results::Measurement.from_h({"server" => a.label, "workload" => "json", "scenario" => "sustained",
        "variant" => "closed-max", "summary" => {"good_rps" => 1.0, "loader_cpu_pct" => 1.0}, "probes" => {"cpu_pct_mean" => 100.0}}))
    end
    installation = answer.class.install(plan.app)
    said = []
    result = Arena::Tune::Scaling.new(plan: plan, store: store, engine: Arena::Load::Engine.new(dir: out, machine: plan.machine),
      workload: plan.workloads.first, deadline: Arena::Support::Clock.now + 240, seed: 7, log: said.method(:<<), rounds: ROUNDS)
      .call(answer, installation, stay: [stay, installation], side_s: 2.0)
    [result, result.stay].each do |r|
      assert r.measured?, "#{r.why} #{said.join("\n")}"
      ratio, (low, high) = r.factor
      assert_operator low, :<=, ratio
      assert_operator high, :>=, ratio
      assert_equal 2, r.many.settings["workers"].to_i, "its processes times the cores"
      # ROUNDS unflagged rounds at least: a round the machine's speed
      # flagged (a busy lane) is run again, and the rounds count it.
      assert_operator r.rounds, :>=, ROUNDS
      assert r.pss_kb.to_i.positive?, "the box's PSS read"
    end
    assert_equal stay, result.stay.one
    cores = JSON.parse(File.read(File.join(out, "results.json")))["measurements"].select { |m| m["variant"] == "cores" }
    labels = [answer, stay].flat_map { |a| [a.label, Arena::Tune::Scaling.scaled(a, machine.cores).label] }
    assert_equal labels.sort, cores.map { |m| m["server"] }.uniq.sort
    assert_equal [result.rounds] * 4, labels.map { |l| cores.count { |m| m["server"] == l } }, "each config once a round"
    assert_match(/cores round 1: .*stay 1 core/, said.join("\n"))
  end
end
