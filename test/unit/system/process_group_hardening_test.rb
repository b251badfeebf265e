# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "tmpdir"

# What System::ProcessGroup refuses: a shell, and a signal to a pid it has reaped.
class ProcessGroupHardeningTest < Minitest::Test
  def setup
    @dir = Dir.mktmpdir("pg-hardening")
    @log = File.join(@dir, "log")
  end

  def teardown = FileUtils.rm_rf(@dir)

  def test_a_string_argv_is_refused
    error = assert_raises(ArgumentError) { Arena::System::ProcessGroup.new("touch #{@dir}/shell", log_path: @log) }
    assert_match(/array of strings/, error.message)
    assert_raises(ArgumentError) { Arena::System::ProcessGroup.new(["ruby", :x], log_path: @log) }
  end

  def test_a_one_word_argv_never_reaches_a_shell
    marker = File.join(@dir, "ran")
    group = Arena::System::ProcessGroup.new(["touch #{marker}; true"], log_path: @log)
    assert_raises(Arena::Error) { group.start }
    refute File.exist?(marker), "a shell ran the word"
  ensure
    group&.stop(grace: 1)
  end

  def test_no_signal_to_a_reaped_pid
    group = Arena::System::ProcessGroup.new(["true"], log_path: @log).start
    group.wait(timeout: 5)
    refute_nil group.exited
    Process.stub(:kill, ->(*args) { flunk "signalled a reaped pid: #{args.inspect}" }) do
      refute group.signal("INT")
      group.stop(grace: 0.2)
    end
    assert_empty group.tree
  end
end
