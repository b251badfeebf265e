# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "tmpdir"

# The engine's body and mix files: this run's content always, one file per
# request however alike two names are.
class WorkloadFilesTest < Minitest::Test
  def workload(name, body: nil, mix: nil)
    Arena::Plan::Workload.new(name: name, path: "/#{name}", method: body ? "POST" : "GET", body: body, expect_status: 200, mix: mix).freeze
  end

  def test_names_alike_never_share_a_body_file
    Dir.mktmpdir do |dir|
      a = workload("create-1", body: "first").body_file(dir)
      b = workload("create_1", body: "second").body_file(dir)
      refute_equal a, b
      assert_equal ["first", "second"], [File.read(a), File.read(b)]
    end
  end

  def test_a_reused_out_dir_never_lends_its_old_files
    Dir.mktmpdir do |dir|
      member = workload("a")
      mix = workload("m", mix: [[1, member]])
      path = mix.mix_file(dir)
      File.write(path, "9 GET /stale 200\n") # an earlier run's file, or a person's edit
      assert_equal path, mix.mix_file(dir)
      refute_includes File.read(mix.mix_file(dir)), "/stale"
      body = workload("b", body: "new").body_file(dir)
      File.write(body, "old")
      assert_equal "new", File.read(workload("b", body: "new").body_file(dir))
    end
  end
end
