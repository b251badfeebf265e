# frozen_string_literal: true

# Measurement values, the results document and its store, tune's document, the host's facts.
require_relative "results/envelope_figures"
require_relative "results/database_figures"
require_relative "results/noise_figures"
require_relative "results/measurement"
require_relative "results/rounds"
require_relative "results/document"
require_relative "results/store"
require_relative "results/tune_document"
require_relative "results/tune_answer"
require_relative "results/host_facts"
require_relative "results/app_digest"
require_relative "results/tune_resume"
