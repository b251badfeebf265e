# frozen_string_literal: true

require_relative "tune/space"
require_relative "tune/candidate"
require_relative "tune/search"
require_relative "tune/budget"
require_relative "tune/estimate"
require_relative "tune/trial"
require_relative "tune/capacity"
require_relative "tune/output"
require_relative "tune/triage"
require_relative "tune/head_to_head"
require_relative "tune/answer"
require_relative "tune/chart"
