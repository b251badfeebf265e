# frozen_string_literal: true

require "arena/remote/session"

module Arena
  # A real `arena agent` on a pipe, started as SSH would start it, without
  # SSH: the remote side of a contract test (Launch::ServerContract, Launch::StarterContract)
  # runs through it on this host.
  module LocalAgent
    Ssh = Struct.new(:command) do
      def argv(_host) = command
    end

    def self.open(dir)
      Remote::Channel.new(host: Remote::Host.parse("ssh://127.0.0.1"), ssh: Ssh.new(Remote::Ssh.default_command),
        log_path: File.join(dir, "agent.log")).open
    end

    # Which of these pids still run (not zombies), on this host: the agent's too.
    def self.alive(pids) = pids.select { |pid| System::Procfs.stat(pid)&.state.then { |s| s && s != "Z" } }
  end
end
