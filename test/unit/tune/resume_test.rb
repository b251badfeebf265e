# frozen_string_literal: true

require "test_helper"
require "json"
require "stringio"
require "arena"
require "arena/tune"
require "arena/cli"

module Arena
  # `arena tune --resume DIR`: a finished tune's confirmation rounds read
  # back from the files a tune writes, merged with new rounds into one
  # verdict, and a DIR refused in one line when its app changed or it is not
  # a finished tune.
  class TuneResumeTest < Minitest::Test
    cover "Arena::Tune::Resume*"
    cover "Arena::Results::TuneResume*"

    Reading = Probes::MachineSpeed::Reading
    LEVELS = {"answer" => 1100.0, "runner-up" => 1000.0, "baseline" => 800.0}.freeze

    def setup
      @dir = Dir.mktmpdir("arena-resume")
      @machine = Plan::Machine.new(cores: 2)
      @app = Bundle::AppSource.builtin
    end

    def teardown = FileUtils.rm_rf(@dir)

    def adapters
      {"answer" => Servers.fetch("iodine").new(settings: {"workers" => 1}, machine: @machine),
       "runner-up" => Servers.fetch("falcon").new(settings: {"count" => 1}, machine: @machine),
       "baseline" => Servers.fetch("puma").new(settings: {"threads" => 3, "workers" => 0}, machine: @machine)}
    end

    # A round's figure: the level, a drift shared by the round, and the answer's own wobble.
    def rps(role, n) = LEVELS.fetch(role) * (1 + 0.1 * Math.sin(n)) * ((role == "answer") ? 1 + 0.06 * (-1)**n : 1)

    def measurement(label, n, rps)
      Results::Measurement.new(server: label, workload: "random", scenario: "steady", variant: "confirmation", repeat: n,
        summary: Results::Summary.new(good_rps: rps, p99_us: 9000), extra: {})
    end

    # DIR as a finished tune leaves it: 8 rounds in results.json, the
    # confirmed answer and how to resume it in tune.json.
    def finished_tune(digest: Bundle::AppDigest.of(@app), rounds: 8, interrupted: false)
      store = Results::Store.new(path: File.join(@dir, "results.json"), environment: {}, plan: {})
      (1..rounds).each do |n|
        adapters.each do |role, adapter|
          store.add_speed(round: n, config: adapter.label, reading: Reading.new(cpu_ms: 5.0, memory_ms: 5.0))
          store.add_measurement(measurement(adapter.label, n, rps(role, n)))
        end
        store.add_confirmation_round(round: n, order: adapters.values.map(&:label), seconds: 30.0, design: "sequential")
      end
      # The answer's scaling rounds, run the same way: kept apart by their variant.
      answer = adapters["answer"].label
      store.add_measurement(measurement(answer, 1, 5.0).with(variant: "cores"))
      store.add_speed(round: 20, config: answer, reading: Reading.new(cpu_ms: 5.0, memory_ms: 5.0), variant: "cores")
      store.add_confirmation_round(round: 20, order: [answer], seconds: 30.0, design: "sequential", variant: "cores")
      store.finish
      sides = adapters.map { |role, a| Tune::Confirmation::Side.of(role: role, adapter: a, installation: nil) }
      sides.each { |s| (1..rounds).each { |n| s.rps[n] = rps(s.role, n) } }
      confirmed = Tune::Confirmed.decide(result_of(sides, (1..rounds).map { |n| Tune::Confirmation::Round.new(number: n, order: [], speeds: {}) }),
        baseline_key: sides.last.key)
      answer = {"server" => "iodine", "changes" => [], "not_done" => ["the confirmation counted 5 of 8 rounds", "uwsgi: not searched"],
                "confirmation" => Results::TuneDocument.confirmation(confirmed)}
      recipe = Results::TuneResume::Recipe.new(argv: ["--servers", "iodine falcon puma"], cwd: @dir, digest: digest, discovered: nil)
      doc = Results::TuneDocument.document(workload: Plan::Workloads.builtin.fetch("random"), constraints: Results::TuneConstraints.new(duration_s: 2.0),
        interrupted: interrupted, servers: {}, answer: answer, resume: recipe)
      Results::TuneResume.write(@dir, doc)
    end

    # A session that serves its side's figure of the round, 3 s on the clock.
    class Session
      def initialize(role, label, test, clock)
        @role = role
        @label = label
        @test = test
        @clock = clock
        @n = 8
      end

      def start(_) = nil

      def warm_up(*, **) = nil

      def stop = nil

      def run(_scenario, _workload, load:)
        @clock.now += 3.0
        @n += 1
        [@test.measurement(@label, @n, @test.rps(@role, @n))]
      end
    end

    Clock = Struct.new(:now)

    def test_the_new_rounds_merge_with_the_earlier_ones_in_one_verdict
      finished_tune
      record = Results::TuneResume.read(@dir)
      assert_equal [%w[answer runner-up baseline], adapters.values.map(&:label)], record.sides.transpose
      assert_equal (1..8).to_a, record.rounds.map(&:number)
      assert_equal [30.0, "sequential"], [record.rounds.first.seconds, record.rounds.first.design]
      sides = Tune::Resume.sides(record, machine: @machine, app: @app)
      assert_equal (1..8).to_a, sides.first.rps.keys, "the earlier rounds' figures are in the sides"
      assert_in_delta rps("answer", 3), sides.first.rps[3], 1e-6
      assert_in_delta rps("answer", 1), sides.first.rps[1], 1e-6, "not the scaling round's figure"
      assert_equal 9.0, sides.first.p99_ms[3]
      prior = Tune::Resume.rounds(record)
      assert_equal 10.0, prior.first.speeds.values.first.total_ms
      before = Tune::Confirmed.decide(result_of(sides, prior), baseline_key: sides.last.key)
      store = Results::Store.reopen(File.join(@dir, "results.json"))
      clock = Clock.new(0.0)
      merged = Tune::Confirmation.new(plan: Plan.new(load: Load::Options.new(**Load.defaults).freeze, machine: @machine), store: store,
        engine: nil, workload: nil, deadline: 100.0, seed: 1, clock: clock, speed: Speed, judge: ->(_) { false },
        session_for: ->(side, _) { Session.new(side.role, side.key, self, clock) }).call(sides, prior: prior)
      # 30 s a round before, 9 s now: a round begins while its 3 turns, at
      # the mean turn (earlier rounds' and new) and twice its spread, still
      # fit in 100 s: 9 to 15 (the 16th, after 63 s, is planned at 3 x 14.0 s)
      assert_equal (1..15).to_a, merged.rounds.map(&:number)
      after = Tune::Confirmed.decide(merged, baseline_key: sides.last.key)
      assert_equal [8, 15], [before.rounds, after.rounds]
      assert_operator after.margin.high_pct - after.margin.low_pct, :<, before.margin.high_pct - before.margin.low_pct, "more rounds, a narrower interval"
      reread = Results::TuneResume.read(@dir)
      assert_equal (1..15).to_a, reread.rounds.map(&:number), "every round in results.json as it was made"
      assert_equal [(1..15).to_a] * 3, adapters.values.map { |a| reread.figures.fetch(a.label).keys.sort }
    end

    module Speed
      def self.read(cpus:) = Reading.new(cpu_ms: 5.0, memory_ms: 5.0)
    end

    def cores_record(h) = Results::TuneResume::CoresRecord.from_h(h)

    def result_of(sides, rounds) = Tune::Confirmation::Result.new(sides: sides, rounds: rounds, flagged: [], median_ms: nil, stopped: "time")

    # The cores rounds a tune had no time for are measured by its resume, in
    # time kept at the pace of its earlier rounds (30 s a round of 3 sides):
    # 6 rounds of 2 sides; none on one core or when the tune measured them.
    def test_the_cores_rounds_the_tune_had_no_time_for_are_kept_time_in_the_resume
      finished_tune
      record = Results::TuneResume.read(@dir)
      sides = adapters.map { |role, a| Tune::Confirmation::Side.of(role: role, adapter: a, installation: nil) }
      closed = ->(engine) {
        Results::Measurement.from_h({"server" => adapters["answer"].label, "scenario" => "sustained", "variant" => "closed-max",
              "summary" => {"good_rps" => 1.0, "loader_cpu_pct" => engine}, "probes" => {"cpu_pct_mean" => 100.0}})
      }
      cores_s = ->(answer: record.answer, machine: @machine, engine: 3.0) {
        Tune::Resume.cores_s(Results::TuneResume.new(**record.to_h, answer: answer), machine: machine, sides: sides, measurements: [closed.call(engine)])
      }
      assert_in_delta Tune::Scaling::ROUNDS * 2 * 30.0 / 3, cores_s.call
      assert_equal 0.0, cores_s.call(machine: Plan::Machine.new(cores: 1))
      assert_equal 0.0, cores_s.call(engine: 9.0), "the engine's share over 5%"
      assert_equal 0.0, Tune::Resume.cores_s(record, machine: @machine, sides: sides, measurements: []), "its share not measured"
      assert_equal 0.0, cores_s.call(answer: record.answer.merge("scaling" => {"cores" => 2, "ratio" => 1.9, "interval" => [1.8, 2.0], "rounds" => 6}))
      assert_in_delta 120.0, cores_s.call(answer: record.answer.merge("scaling" => {"cores" => 2, "why" => Tune::Scaling.later(@dir, 118)}))
    end

    # A resume of 480 s began cores rounds of ~100 s a round, ran 2 of the 3
    # that give a figure and said nothing for them; a --max-time that cannot
    # hold them gives its time to the confirmation rounds, and says so.
    def test_a_max_time_short_of_the_cores_rounds_gives_them_up_and_says_so
      finished_tune
      record = Results::TuneResume.read(@dir)
      err = StringIO.new
      resume = Tune::Resume.new(plan: Plan.new(machine: @machine), record: record, max_time: 300.0, err: err, out: StringIO.new)
      assert_equal 264.0, resume.send(:cores_kept, 264.0)
      assert_equal 0.0, resume.send(:cores_kept, 301.0)
      assert_equal "tune: the cores rounds need about 301 s, more than --max-time: only confirmation rounds now " \
        "(--max-time 360 or more measures them)\n", err.string
    end

    # Your server's best config, a side of its own, joins the cores rounds:
    # twice the time (6 rounds of 4 sides at 30 s a round of 4), and none
    # more when its share is not measured.
    def test_the_stay_config_doubles_the_cores_rounds_time_where_it_can_be_measured
      finished_tune
      record = Results::TuneResume.read(@dir)
      stay = Servers.fetch("puma").new(settings: {"threads" => 5, "workers" => 1}, machine: @machine)
      sides = adapters.merge("stay" => stay).map { |role, a| Tune::Confirmation::Side.of(role: role, adapter: a, installation: nil) }
      closed = ->(label) {
        Results::Measurement.from_h({"server" => label, "scenario" => "sustained", "variant" => "closed-max",
              "summary" => {"good_rps" => 1.0, "loader_cpu_pct" => 3.0}, "probes" => {"cpu_pct_mean" => 100.0}})
      }
      both = [closed.call(adapters["answer"].label), closed.call(stay.label)]
      assert_in_delta Tune::Scaling::ROUNDS * 2 * 2 * 30.0 / 4, Tune::Resume.cores_s(record, machine: @machine, sides: sides, measurements: both)
      assert_in_delta Tune::Scaling::ROUNDS * 2 * 30.0 / 4, Tune::Resume.cores_s(record, machine: @machine, sides: sides, measurements: both.first(1))
    end

    def test_the_tunes_own_cores_rounds_are_said_again
      one = adapters["answer"]
      r = Tune::Resume.scaling_of(cores_record({"cores" => 2, "config" => "iodine:workers=2", "ratio" => 1.9, "interval" => [1.8, 2.0], "rounds" => 6}), one, machine: @machine)
      assert r.measured?
      assert_equal [1.9, [1.8, 2.0]], r.factor
      assert_equal({"workers" => 2}, r.many.settings.slice("workers").transform_values(&:to_i))
      assert_match(/\Aon 2 cores: iodine workers=2 .*: 1\.90× \(1\.80–2\.00\) one core\z/, Tune::AnswerWords.scaling(r).first)
      assert_nil r.stay
      stay = {"cores" => 2, "config" => "puma:workers=2,threads=5", "ratio" => 1.8, "interval" => [1.7, 1.9], "rounds" => 6, "pss_mib" => 300.0}
      r = Tune::Resume.scaling_of(cores_record({"cores" => 2, "config" => "iodine:workers=2", "ratio" => 1.9, "interval" => [1.8, 2.0], "rounds" => 6,
        "stay" => stay}), one, machine: @machine)
      assert_equal [1.8, [1.7, 1.9]], r.stay.factor
      assert_equal 300.0 * 1024, r.stay.pss_kb
      refute Tune::Resume.scaling_of(cores_record({"cores" => 2, "why" => "no time"}), one, machine: @machine).measured?, "no ratio: not measured"
    end

    def test_a_tune_without_time_for_the_cores_rounds_says_the_command_that_measures_them
      r = Tune::Scaling::Result.new(one: adapters["answer"], cores: 2, why: Tune::Scaling.later("/r/dir", 111)).freeze
      line, = Tune::AnswerWords.scaling(r)
      assert_equal "on 2 cores: not measured (no time in this tune; `arena tune --resume /r/dir --max-time 120` measures it)", line
      long = "  #{line}#{" of every core" * 4}"
      assert_equal long, Tune::AnswerWords.fit(long), "a line with the command is never cut"
    end

    # A discovered mix is loaded again as the tune loaded it: its paths,
    # statuses and weights kept in tune.json (a record without weights reads 1).
    def test_a_discovered_mix_is_loaded_again_with_its_weights
      mix = Plan::Discovery.workload([[2, {"path" => "/issues", "status" => 200}], [1, {"path" => "/issues/7", "status" => 200}]])
      kept = Plan::Discovery.paths(mix)
      assert_equal [["/issues", 200, 2], ["/issues/7", 200, 1]], kept
      recipe = Results::TuneResume::Recipe.new(argv: [], cwd: @dir, digest: nil, discovered: kept)
      back = Results::TuneResume::Recipe.from_h(JSON.parse(JSON.generate(recipe.to_record.merge("app" => {}))))
      again = Plan::Discovery.again(back.discovered)
      assert_equal mix.mix.map { |w, m| [w, m.path, m.expect_status] }, again.mix.map { |w, m| [w, m.path, m.expect_status] }
      old = Results::TuneResume::Recipe.from_h({"argv" => [], "cwd" => @dir, "app" => {}, "discovered" => [{"path" => "/a", "status" => 200}]})
      assert_equal [["/a", 200, 1]], old.discovered
      assert_equal [["/a", 200, 1]], Plan::Discovery.paths(Plan::Discovery.again(old.discovered))
    end

    def test_the_provisional_answer_keeps_the_searchs_notes_and_not_the_confirmations
      finished_tune
      p = Tune::Resume.provisional(Results::TuneResume.read(@dir).answer)
      assert_equal ["iodine", ["uwsgi: not searched"]], [p.server, p.not_done]
    end

    # tune.json again: the answer replaced, the resume said, the earlier
    # scaling kept only for the same config; the loads' length read back.
    def test_the_tune_document_after_a_resume
      doc = {"answer" => {"server" => "iodine", "settings" => {"workers" => 1}, "scaling" => {"ratio" => 1.8}}, "servers" => {}}
      same = Results::TuneResume.resumed(doc, answer: {"server" => "iodine", "settings" => {"workers" => 1}, "rounds" => 12}, rounds: 4, seconds: 99.6)
      assert_equal [{"ratio" => 1.8}, 12, 4, 100, {}], [same["answer"]["scaling"], same["answer"]["rounds"], same["resumed"][0]["rounds"],
        same["resumed"][0]["seconds"], same["servers"]]
      other = Results::TuneResume.resumed(doc, answer: {"server" => "puma", "settings" => {"workers" => 1}}, rounds: 4, seconds: 99.6)
      assert_nil other["answer"]["scaling"], "another config's scaling is not this one's"
      finished_tune
      assert_equal 2.0, Results::TuneResume.read(@dir).duration_s
    end

    def arena(*argv)
      out = StringIO.new
      err = StringIO.new
      status = CLI.new(["tune", *argv], out: out, err: err).run
      [status, err.string]
    end

    # --max-time 1: were it not refused, no round would fit (the earlier took 30 s) and none would start.
    def test_a_changed_app_is_refused_in_one_line
      now = Bundle::AppDigest.of(@app)
      finished_tune(digest: Results::AppDigest.new(lock: "0" * 64, code: now.code))
      status, err = arena("--resume", @dir, "--max-time", "1")
      assert_equal [2, "arena: #{@dir}: the app changed since this tune (its Gemfile.lock changed): its rounds cannot be merged; " \
        "run arena tune again\n"], [status, err.lines.last]
      finished_tune(digest: Results::AppDigest.new(lock: now.lock, code: "0" * 64))
      assert_match(/\(its code changed\)/, arena("--resume", @dir, "--max-time", "1").last.lines.last)
    end

    def test_a_dir_that_is_not_a_finished_tune_is_refused_in_one_line
      assert_equal [2, "arena: #{@dir} is not a finished tune to resume: no tune.json\n"], arena("--resume", @dir)
      finished_tune(interrupted: true)
      assert_equal [2, "arena: #{@dir} is not a finished tune to resume: it was interrupted\n"], arena("--resume", @dir, "--max-time", "1")
      assert_equal [2, "arena: --resume takes only --max-time and --verbose (the rest is the tune's own): not --servers\n"],
        arena("--resume", @dir, "--servers", "puma")
    end
  end
end
