# frozen_string_literal: true

require_relative "../core"
require_relative "../system/process_group"
require_relative "plan"

module Arena
  class Plan
    # A probe script run inside the app's bundle (`bundle exec ruby SCRIPT
    # ARGS`), as a server gets it (its Bundler settings, Arena's own bundle
    # cleaned out), in a process group of its own stopped at the timeout:
    # its stdout into DIR/NAME.EXT, its stderr into DIR/NAME.log. Discovery
    # and Pace ask the app this way.
    module AppProbe
      # status: the exit status, nil at the timeout; tail: the log's last lines.
      Ran = Struct.new(:status, :out_path, :log_path, :tail, keyword_init: true)

      module_function

      def run(argv, app:, dir:, name:, timeout:, env: {}, ext: "json")
        out_path = File.join(dir, "#{name}.#{ext}")
        log_path = File.join(dir, "#{name}.log")
        group = System::ProcessGroup.new(["bundle", "exec", "ruby", *argv], log_path: log_path, chdir: app.dir, env: env_for(app, env))
        status = File.open(out_path, "w") do |out|
          group.start(out: out)
          group.wait(timeout: timeout)
        ensure
          group.stop(grace: 2)
        end
        Ran.new(status: status, out_path: out_path, log_path: log_path, tail: group.log_tail(3).join(" | ")).freeze
      end

      # The app's bundle as a server gets it, Arena's own bundle cleaned out.
      def env_for(app, extra)
        app.bundle_env.merge("RUBYOPT" => nil, "RUBYLIB" => nil, "BUNDLE_BIN_PATH" => nil, "BUNDLER_SETUP" => nil,
          "BUNDLER_VERSION" => nil).merge(APP_ENV).merge(app.env || {}).merge(extra)
      end
    end
  end
end
