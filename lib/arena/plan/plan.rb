# frozen_string_literal: true

require_relative "../load/transport"

module Arena
  # Everything a run will do, decided before anything starts, built from
  # flags (over arena.yml, over a preset, over defaults) and frozen with its
  # lists. Bad input fails here, before any process is spawned.
  Plan = Struct.new(:app, :servers, :workloads, :scenarios, :load, :bind, :out_dir, :json_path,
    :rounds, :port, :ready_timeout, :machine, :front, :preset, :headers, :env, :round_seed, :between_rounds, :precision,
    :transport, :database, :budget, :baseline, :live_database, keyword_init: true) do
    # The old name of rounds (the flag was --repeat before rounds).
    def repeat = rounds

    # Whether the servers stay up between rounds (--between-rounds keep, the
    # default; plans built elsewhere have none): Runner.rounds_for.
    def keep_up? = between_rounds != "restart"

    # Plain HTTP/1.1 unless --transport said otherwise (plans built elsewhere have none).
    def transport_or_plain = transport || Load::Transport.plain
    # database: --database's Database::Spec (its kind); live_database: the
    # live one (Postgres, Sqlite) once Database.open started it, nil before.
    # preset: the Presets::Chosen the run re-runs (nil: none).
    def to_h_members = members.to_h { |m| [m, self[m]] }

    # budget: the Plan::Budget::Fit the run was fitted to its time with (nil:
    # not fitted). The same plan under a fit.
    def with_budget(fit) = with(budget: fit)

    # The same plan with these members changed (a fitted budget, the live
    # database, tune's workload or load).
    def with(**changes) = self.class.new(**to_h_members, **changes).freeze

    # The load a scenario runs with: the plan's, its own bound (a sweep's
    # unit_bound_s, --soak-time) lowered where the run was fitted to its time.
    def load_for(name, base = load)
      lowered = budget&.overrides&.[](name)
      lowered ? base.lowered(lowered) : base
    end

    # How many rounds a scenario runs: the long ones may run fewer (Plan::Budget).
    def rounds_for(long) = budget ? budget.rounds_of(long) : rounds

    # A seed for the rounds' order (Run::Rounds) of a run that was not given
    # one; the plan records it, so the run can be re-done in the same order.
    def self.new_seed = Random.new_seed % 2**31

    def to_h
      {
        app: app.to_h, servers: servers.map(&:to_h), workloads: workloads.map(&:to_h),
        scenarios: scenarios, load: load.to_h, bind: bind, rounds: rounds, machine: machine.to_h,
        front: front, headers: headers, env: env, round_seed: round_seed, between_rounds: between_rounds,
        precision_pct: precision, transport: transport&.to_h,
        database: (live_database || database)&.to_h, budget: budget&.to_h,
        baseline: baseline
      }.compact.merge(preset ? {preset: preset.to_h} : {})
    end
  end
end
