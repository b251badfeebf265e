# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# Arena's own threads on the engine's core (issue 32): pinned in a child
# process, so that the test run itself keeps every core.
class AffinityTest < Minitest::Test
  def allowed(pid) = File.read("/proc/#{pid}/status")[/^Cpus_allowed_list:\s*(\S+)/, 1]

  def test_a_pinned_arena_runs_its_threads_on_the_cpus_and_its_children_on_every_core
    skip "one core: nothing to pin apart" if Arena::Support::Affinity::CORES < 2
    last = (Arena::Support::Affinity::CORES - 1).to_s
    script = <<~RUBY
      require "arena"
      t = Thread.new { sleep 1 }
      ok = Arena::Support::Affinity.pin_self(#{last.inspect})
      later = Thread.new { File.read("/proc/thread-self/status")[/^Cpus_allowed_list:\\s*(\\S+)/, 1] }.value
      own = File.read("/proc/self/task/\#{t.native_thread_id}/status")[/^Cpus_allowed_list:\\s*(\\S+)/, 1]
      group = Arena::System::ProcessGroup.new(["sh", "-c", "grep Cpus_allowed_list /proc/self/status"], log_path: ARGV[0])
      group.start
      group.wait(timeout: 10)
      puts [ok, Arena::Support::Affinity.pinned, later, own, File.read(ARGV[0])[/Cpus_allowed_list:\\s*(\\S+)/, 1]].inspect
    RUBY
    Dir.mktmpdir do |dir|
      out = IO.popen([RbConfig.ruby, "-Ilib", "-e", script, File.join(dir, "log")], &:read)
      assert_equal [true, last, last, last, "0-#{last}"].inspect, out.strip, "pinned; a later thread, an earlier one; a child on every core"
    end
    assert_equal "0-#{last}", allowed(Process.pid), "this process untouched"
  end

  def test_nothing_asked_nothing_pinned
    refute Arena::Support::Affinity.pin_self(nil)
    assert_nil Arena::Support::Affinity.for_child(nil) unless Arena::Support::Affinity.pinned
    assert_equal "3", Arena::Support::Affinity.for_child("3")
  end
end
