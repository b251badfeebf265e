# frozen_string_literal: true

require "fileutils"
require "tmpdir"
require_relative "../launch/local_server"
require_relative "../plan/workloads"
require_relative "../planner/builder"
require_relative "../system/bind"
require_relative "../verify/verify"
require_relative "base"

module Arena
  module Commands
    # `arena check`: start each server, run the pre-flight verification, stop.
    class Check < Base
      def call
        builder = Planner::Builder.new(say: ->(line) { @err.puts line }).parse(@argv, banner: "usage: arena check [options]", load: false)
        builder.options[:workloads] ||= Plan::Workloads.builtin.keys unless builder.options[:app]
        plan = builder.build
        Dir.mktmpdir("arena-check") do |dir|
          plan.servers.map { |adapter| check(plan, adapter, dir) }.all? ? 0 : 1
        end
      end

      private

      def check(plan, adapter, dir)
        installation = adapter.class.install(plan.app)
        return report(adapter.label, false, "not installed (#{installation.why})") unless installation.found
        server_dir = File.join(dir, adapter.label.gsub(/[^\w.=-]+/, "_"))
        bind = (plan.bind == "unix") ? System::Bind.unix(File.join(server_dir, "s.sock")) : System::Bind.tcp(port: plan.port)
        server = Launch::LocalServer.new(adapter: adapter, app: plan.app, bind: bind, dir: server_dir,
          machine: plan.machine, ready_timeout: plan.ready_timeout, env: plan.env || {})
        server.start
        outcomes = Verify.new(bind: bind, headers: plan.headers || {}).call(plan.workloads)
        failed = outcomes.reject(&:ok)
        detail = failed.empty? ? "#{outcomes.size} workloads verified" : failed.map { |o| "#{o.workload}: #{o.problems.join("; ")}" }.join(" | ")
        report("#{adapter.label} #{installation.version}", failed.empty?, "ready in #{server.boot_s}s#{Launch::LocalServer.retried(server.boot_retry)}, #{detail}")
      rescue Launch::LocalServer::Failed => e
        report(adapter.label, false, e.message, e.log_tail)
      ensure
        server&.stop
      end

      def report(label, ok, detail, tail = [])
        @out.puts "#{ok ? "ok    " : "FAILED"} #{label}: #{detail}"
        tail.each { |line| @out.puts "       | #{line}" }
        ok
      end
    end
  end
end
