# frozen_string_literal: true

require_relative "../system/process_group"

module Arena
  module Bundle
    # Runs one `bundle` subcommand against a Gemfile, through System::ProcessGroup
    # (own process group, TERM then KILL at the deadline), in an environment
    # cleaned of Arena's own `bundle exec`: the overlay is resolved as if
    # a person ran `BUNDLE_GEMFILE=... bundle lock` in a fresh shell.
    class BundlerCommand
      Outcome = Struct.new(:ok, :output, keyword_init: true)

      # A frozen or deployment setting (say in ~/.bundle/config) would forbid
      # writing the overlay's own lock: both are off for it.
      CLEAN = %w[RUBYOPT RUBYLIB BUNDLE_BIN_PATH BUNDLER_SETUP BUNDLER_VERSION BUNDLE_WITHOUT BUNDLE_ONLY
        BUNDLE_LOCKFILE].to_h { |name| [name, nil] }.merge("BUNDLE_FROZEN" => "false", "BUNDLE_DEPLOYMENT" => "false").freeze

      def initialize(timeout: 300, env: {})
        @timeout = timeout
        @env = env
      end

      # argv: the subcommand and its flags, e.g. ["lock", "--local"].
      def call(gemfile, argv, log_path:)
        File.write(log_path, "")
        # One retry: an unreachable registry costs seconds, not half a minute.
        group = System::ProcessGroup.new(["bundle", *argv], log_path: log_path, chdir: File.dirname(gemfile),
          env: CLEAN.merge("BUNDLE_GEMFILE" => gemfile, "BUNDLE_RETRY" => "1").merge(@env))
        begin
          group.start
          status = group.wait(timeout: @timeout)
        ensure
          group.stop(grace: 2)
        end
        output = File.read(log_path)
        return Outcome.new(ok: false, output: "bundle #{argv.first} took longer than #{@timeout}s") if status.nil?
        Outcome.new(ok: status.respond_to?(:success?) && status.success?, output: output)
      end
    end
  end
end
