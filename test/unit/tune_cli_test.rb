# frozen_string_literal: true

require "test_helper"
require "arena"
require "stringio"

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
        %w[--servers puma --workload pi,server] => "arena: arena tune searches for one workload at a time (got pi, server)\n",
        %w[extra] => "arena: unexpected argument \"extra\"\n"
      }.each do |argv, message|
        status, err = tune(*argv)
        assert_equal [2, message], [status, err], argv.join(" ")
      end
    end
  end
end
