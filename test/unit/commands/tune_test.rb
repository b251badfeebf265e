# frozen_string_literal: true

require "test_helper"
require "arena"
require "stringio"
require "tmpdir"
require "arena/commands/tune"

module Arena
  # `arena tune`'s bad input: one line, exit 2, before anything starts.
  class TuneCliTest < Minitest::Test
    cover "Arena::Tune::Trial*"

    def tune(*argv)
      out = StringIO.new
      err = StringIO.new
      status = CLI.new(["tune", *argv], out: out, err: err).run
      [status, err.string]
    end

    def test_bad_input_is_one_line_and_exit_2
      {
        %w[--memory lots] => "arena: --memory takes a size like 512MiB, 2GiB or a number of bytes, not \"lots\"\n",
        %w[--memory 12] => "arena: --memory must be at least 1MiB\n",
        %w[--scenario steady] => "arena: arena tune runs its own scenario (sustained): --scenario is for arena run\n",
        %w[--repeat 3] => "arena: arena tune does not take --repeat or --rounds: it measures the start and every leading candidate 3 times and keeps a lead only when significant\n",
        %w[extra] => "arena: unexpected argument \"extra\"\n"
      }.each do |argv, message|
        status, err = tune(*argv)
        assert_equal [2, message], [status, err], argv.join(" ")
      end
    end

    # Several workloads are searched as one mix, each an equal share, said in one line.
    def test_several_workloads_are_tuned_as_one_mix
      err = StringIO.new
      command = Commands::Tune.new(%w[--servers puma --workload pi,server,json], out: StringIO.new, err: err)
      plan = command.send(:planned, command.send(:parse))
      assert_equal 1, plan.workloads.size
      mix = plan.workloads.first
      assert_equal "pi+server+json", mix.name
      assert_equal [[1, "pi"], [1, "server"], [1, "json"]], mix.mix.map { |w, wl| [w, wl.name] }
      assert_equal "tune: 3 workloads as one mix, equal shares: 1 pi, 1 server, 1 json\n", err.string
    end

    # A requests file's two mixes are each an equal share; their weights kept inside it.
    def test_a_requests_files_mixes_keep_their_weights_inside_equal_shares
      Dir.mktmpdir do |dir|
        file = File.join(dir, "requests.yml")
        File.write(file, "requests: {a: /a, b: /b, c: /c}\nmixes: {one: {a: 3, b: 1}, two: {c: 1}}\n")
        mix = Plan::RequestsFile.load(file).workloads.then { |list| Plan::Workloads.mixed(list) }
        assert_equal [[3, "a"], [1, "b"], [4, "c"]], mix.mix.map { |w, wl| [w, wl.name] }
        File.write(file, "requests: {a: /a, b: {path: /b, headers: {X-Key: k}}}\n")
        error = assert_raises(UsageError) { Plan::Workloads.mixed(Plan::RequestsFile.load(file).workloads) }
        assert_equal "a, b send different headers: the engine sends one set for a whole mix; give them one at a time", error.message
      end
    end
  end
end
